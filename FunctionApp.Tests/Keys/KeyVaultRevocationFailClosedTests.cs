using WidgetSigning.Envelopes;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// Revocation cannot fail open. A 403/404 on the current version is final whatever the versions list does;
/// a credential that stops working fails closed the same way; and a cached key that Key Vault has not confirmed for
/// <c>KeyVault:MaxCachedKeyAge</c> stops signing.
/// </summary>
public sealed class KeyVaultRevocationFailClosedTests
{
    private static readonly byte[] Input = Vector.Load("one-widget").Input;

    [Fact]
    public async Task SignAsync_CurrentVersionDisabledWhileVersionsListFailsAttack_StopsAtTheNextRefreshAndStaysStopped()
    {
        // Arrange: signing works; then the operator disables the version while the versions list answers 500.
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        (await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Server.Disable(KeyVaultHarness.SecretName, version);
        harness.Server.FailVersionsList = true;

        // Act: three refreshes with the list failing throughout.
        var refusals = new List<ProblemException>();
        await harness.AdvanceToNextRefreshAsync();
        for (var i = 0; i < 3; i++)
        {
            refusals.Add(await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)));
            await harness.AdvanceAsync(harness.Source.NextAttemptAt - harness.Time.GetUtcNow());
        }

        var verifiable = await harness.Source.FindKeyAsync(version, CancellationToken.None);

        // Assert: 503 at every attempt, the 403 named, the version no longer verifies, 3007 logged once.
        Assert.All(refusals, r => Assert.Contains("403", r.Message, StringComparison.Ordinal));
        Assert.Null(verifiable);
        Assert.Single(harness.LogsWithEvent(3007));

        // Act 2 / Assert 2: re-enabled and the list answering again: the next refresh resumes signing, no restart.
        harness.Server.Enable(KeyVaultHarness.SecretName, version);
        harness.Server.FailVersionsList = false;
        await harness.AdvanceAsync(harness.Source.NextAttemptAt - harness.Time.GetUtcNow());
        using var resumed = await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);
        Assert.Equal(version, resumed.KeyId);
    }

    [Fact]
    public async Task SignAsync_SecretDeletedWhileVersionsListFailsAttack_StopsSigning()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        (await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Server.FailVersionsList = true;
        harness.Server.Delete(KeyVaultHarness.SecretName);

        // Act
        await harness.AdvanceToNextRefreshAsync();
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));

        // Assert
        Assert.Contains("404", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SignAsync_CredentialNoLongerAcceptedAttack_FailsClosedOn401()
    {
        // Arrange: the vault stops accepting the app's token (its access is gone); every call gets 401.
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        (await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Server.RevokeToken();

        // Act
        await harness.AdvanceToNextRefreshAsync();
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));

        // Assert: not an outage (which would keep signing with the cached key), a refusal.
        Assert.Contains("401", refused.Message, StringComparison.Ordinal);
        Assert.Single(harness.LogsWithEvent(3007));
        Assert.Empty(harness.LogsWithEvent(3003));
    }

    [Fact]
    public async Task SignAsync_ManagedIdentityDeletedAttack_FailsClosedWhenNoTokenCanBeHad()
    {
        // Arrange: tokens live for no time, so each refresh asks the credential; then the identity is deleted.
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Credential.Lifetime = TimeSpan.Zero;
        harness.Rotate();
        (await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Credential.IdentityDeleted = true;

        // Act
        await harness.AdvanceToNextRefreshAsync();
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));

        // Assert
        Assert.Contains("credential cannot get a token", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SignAsync_VaultOutageLongerThanMaxCachedKeyAgeAttack_StopsSigningThenResumesWhenTheVaultAnswers()
    {
        // Arrange: a revocation the app cannot see (the vault fails every call) must not let the cached key sign forever.
        await using var harness = await KeyVaultHarness.StartAsync(o => o.MaxCachedKeyAge = TimeSpan.FromMinutes(30));
        var version = harness.Rotate();
        (await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Server.Fault = FakeKeyVaultFault.ServerError;

        // Act: within the age the cached key signs (an outage); past it, it does not.
        await harness.AdvanceAsync(TimeSpan.FromMinutes(29));
        using (var stillSigning = await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None))
        {
            Assert.Equal(version, stillSigning.KeyId);
        }

        await harness.AdvanceAsync(TimeSpan.FromMinutes(2));
        var stale = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));
        harness.Server.Fault = FakeKeyVaultFault.None;
        await harness.AdvanceAsync(harness.Source.NextAttemptAt - harness.Time.GetUtcNow());
        using var resumed = await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Contains("KeyVault:MaxCachedKeyAge", stale.Message, StringComparison.Ordinal);
        Assert.True(stale.Problem.RetryAfter >= TimeSpan.FromSeconds(1));
        Assert.Equal(version, resumed.KeyId);
    }

    [Fact]
    public async Task SignAsync_VersionsListFailsButCurrentStillServed_KeepsSigningAsAnOutage()
    {
        // Arrange: the contrast: the list fails, the probe of the current version succeeds: an outage, not a revocation.
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        (await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Server.FailVersionsList = true;

        // Act
        await harness.AdvanceToNextRefreshAsync();
        using var signed = await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Equal(version, signed.KeyId);
        Assert.Single(harness.LogsWithEvent(3003));
        Assert.Empty(harness.LogsWithEvent(3007));
    }

    private static WidgetEnvelope Read()
    {
        using var stream = new MemoryStream(Input, writable: false);
        return new WidgetEnvelopeReader().Read(stream);
    }
}
