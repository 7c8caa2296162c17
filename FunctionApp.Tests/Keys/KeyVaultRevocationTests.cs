using WidgetSigning.Envelopes;
using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// Revocation fails closed, against the HTTPS fake vault and the real SecretClient: a disabled, deleted-access, expired or
/// not-yet-valid current version signs nothing (503 with Retry-After) and verifies nothing; undoing it resumes signing
/// in the same process.
/// </summary>
public sealed class KeyVaultRevocationTests
{
    private static readonly byte[] Input = Vector.Load("one-widget").Input;

    [Fact]
    public async Task SignFunction_CurrentVersionDisabledAttack_503WithinOneRefreshThenResumesWhenReEnabled()
    {
        // Arrange: signing works with the current version.
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        var function = CreateSignFunction(harness);
        var before = await PostAsync(function);
        Assert.Equal(200, before.Status);

        // Act 1: an operator disables the version; Key Vault answers 403 from now on.
        harness.Server.Disable(KeyVaultHarness.SecretName, version);
        await harness.AdvanceToNextRefreshAsync();
        var revoked = await PostAsync(function);

        // Assert 1: fail closed within one refresh interval, with a Retry-After, logged once.
        Assert.Equal(503, revoked.Status);
        Assert.Equal(ProblemTypes.KeyUnavailable, revoked.Json.Value<string>("type"));
        Assert.True(int.Parse(revoked.ResponseHeaders.RetryAfter.ToString(), System.Globalization.CultureInfo.InvariantCulture) >= 1);
        Assert.False(revoked.ResponseHeaders.ContainsKey(SignatureHeaders.Signature));
        Assert.Single(harness.LogsWithEvent(3007));

        // Act 2: re-enabled; the next refresh (on the failure backoff, not a restart) picks it up.
        harness.Server.Enable(KeyVaultHarness.SecretName, version);
        await harness.AdvanceAsync(harness.Options.FailureRetryDelay);
        var resumed = await PostAsync(function);

        // Assert 2
        Assert.Equal(200, resumed.Status);
        Assert.Equal(version, resumed.Json.Value<string>("keyId"));
        Assert.Single(harness.LogsWithEvent(3008));
    }

    [Fact]
    public async Task VerifyAsync_CurrentVersionDisabledAttack_ItsSignaturesNoLongerVerify()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        var envelope = Read();
        Signature signature;
        using (var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None))
        {
            signature = signed.Signature;
        }

        Assert.True((await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, version, webhook: null, CancellationToken.None)).IsValid);

        // Act
        harness.Server.Disable(KeyVaultHarness.SecretName, version);
        await harness.AdvanceToNextRefreshAsync();
        var named = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, version, webhook: null, CancellationToken.None);
        var any = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, null, webhook: null, CancellationToken.None);
        harness.Server.Enable(KeyVaultHarness.SecretName, version);
        await harness.AdvanceAsync(harness.Options.FailureRetryDelay);
        var afterReEnable = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, version, webhook: null, CancellationToken.None);

        // Assert
        Assert.False(named.IsValid);
        Assert.Equal(VerificationFailure.UnknownKeyId, named.Failure);
        Assert.False(any.IsValid);
        Assert.True(afterReEnable.IsValid);
    }

    [Fact]
    public async Task SignAsync_CurrentVersionDisabledWithEarlierVersion_NeitherSignsWithTheOlderOne()
    {
        // Arrange: rotation made v2 current; then v2 is disabled. Falling back to v1 would sign with a retired key.
        await using var harness = await KeyVaultHarness.StartAsync();
        var first = harness.Rotate();
        var envelope = Read();
        Signature oldSignature;
        using (var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None))
        {
            oldSignature = signed.Signature;
        }

        var second = harness.Rotate();
        await harness.AdvanceToNextRefreshAsync();
        harness.Server.Disable(KeyVaultHarness.SecretName, second);
        await harness.AdvanceToNextRefreshAsync();

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));
        var older = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, oldSignature, first, webhook: null, CancellationToken.None);

        // Assert: no signing; the earlier (still enabled, recently replaced) version still verifies what it signed.
        Assert.Contains("403", error.Message, StringComparison.Ordinal);
        Assert.True(older.IsValid);
    }

    [Fact]
    public async Task SignAsync_CurrentVersionPastExpiresOn_RefusedAtOnceWithoutWaitingForARefresh()
    {
        // Arrange: Key Vault still hands out an expired secret (exp is informational for secrets); the app must not sign.
        await using var harness = await KeyVaultHarness.StartAsync();
        var expires = harness.Time.GetUtcNow().AddMinutes(1);
        var version = harness.Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64, expiresOn: expires);
        var envelope = Read();
        Signature signature;
        using (var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None))
        {
            Assert.Equal(version, signed.KeyId);
            signature = signed.Signature;
        }

        // Act: a minute later, before the next refresh is due.
        harness.Time.Advance(TimeSpan.FromMinutes(1));
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));
        var verified = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, version, webhook: null, CancellationToken.None);

        // Assert
        Assert.Contains("expired", error.Message, StringComparison.Ordinal);
        Assert.Equal(VerificationFailure.UnknownKeyId, verified.Failure);
    }

    [Fact]
    public async Task SignAsync_OnlyVersionStaged_503UntilItsNotBeforeThenSigns()
    {
        // Arrange: the secret's only version is staged (nbf ahead): there is no current key yet.
        await using var harness = await KeyVaultHarness.StartAsync();
        var notBefore = harness.Time.GetUtcNow().AddMinutes(2);
        var version = harness.Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64, notBefore: notBefore);
        var envelope = Read();

        // Act
        var early = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));
        await harness.AdvanceAsync(TimeSpan.FromMinutes(2));
        using var later = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Contains("staged until", early.Message, StringComparison.Ordinal);
        Assert.Equal(version, later.KeyId);
    }

    [Fact]
    public async Task SignAsync_VaultOutageAfterKeyLoaded_StillSignsWithTheCachedKey()
    {
        // Arrange: the contrast to revocation – a 500 is an outage, not a decision, so the cached key stays in use.
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        var envelope = Read();
        (await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None)).Dispose();
        harness.Server.Fault = FakeKeyVaultFault.ServerError;

        // Act
        await harness.AdvanceToNextRefreshAsync();
        using var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Equal(version, signed.KeyId);
        Assert.Empty(harness.LogsWithEvent(3007));
    }

    private static SignFunction CreateSignFunction(KeyVaultHarness harness) => new(new SignHandler(
        new HttpEnvelopeReader(new WidgetEnvelopeReader(), harness.Streams, Microsoft.Extensions.Options.Options.Create(new HttpOptions()), TestServices.NoBudget),
        harness.Signer,
        Microsoft.Extensions.Options.Options.Create(new ReceiverOptions()),
        TestAuthorizers.Open(), NullLogger<SignHandler>.Instance));

    private static async Task<HttpExchange> PostAsync(SignFunction function)
    {
        var exchange = HttpExchange.Post(Input);
        await exchange.ExecuteAsync(await function.RunAsync(exchange.Request));
        return exchange;
    }

    private static WidgetEnvelope Read()
    {
        using var stream = new MemoryStream(Input, writable: false);
        return new WidgetEnvelopeReader().Read(stream);
    }
}
