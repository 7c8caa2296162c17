using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Keys;

/// <summary>Key rotation: new versions are picked up by the background refresh; recent earlier versions still verify.</summary>
public sealed class KeyVaultRotationTests
{
    private static readonly byte[] Input = Vector.Load("one-widget").Input;

    [Fact]
    public async Task SignAsync_NewVersionCreated_UsedWithinOneRefreshInterval()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var first = harness.Rotate();
        Assert.Equal(first, await SignAsync(harness));
        var second = harness.Rotate();

        // Act
        var beforeRefresh = await SignAsync(harness);
        await harness.AdvanceAsync(harness.Options.RefreshInterval);
        var afterRefresh = await SignAsync(harness);

        // Assert
        Assert.Equal(first, beforeRefresh);
        Assert.Equal(second, afterRefresh);
        Assert.Single(harness.LogsWithEvent(3002));
    }

    [Fact]
    public async Task VerifyAsync_SignatureFromPreviousVersion_StillVerifiesUnderThatKeyId()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var first = harness.Rotate();
        var envelope = Read();
        var (signature, keyId) = await SignWithIdAsync(harness);
        harness.Rotate();
        await harness.AdvanceAsync(harness.Options.RefreshInterval);

        // Act
        var withoutKeyId = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, null, webhook: null, CancellationToken.None);
        var withKeyId = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, keyId, webhook: null, CancellationToken.None);

        // Assert
        Assert.Equal(first, keyId);
        Assert.True(withoutKeyId.IsValid);
        Assert.Equal(first, withoutKeyId.KeyId);
        Assert.True(withKeyId.IsValid);
    }

    [Fact]
    public async Task VerifyAsync_VersionBeyondAcceptedCount_DoesNotVerify()
    {
        // Arrange: only one earlier version is accepted.
        await using var harness = await KeyVaultHarness.StartAsync(o => o.AcceptedPreviousVersions = 1);
        var envelope = Read();
        harness.Rotate();
        var (oldest, oldestId) = await SignWithIdAsync(harness);
        harness.Rotate();
        await harness.AdvanceAsync(harness.Options.RefreshInterval);
        var (middle, middleId) = await SignWithIdAsync(harness);
        harness.Rotate();
        await harness.AdvanceAsync(harness.Options.RefreshInterval);

        // Act
        var oldestAny = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, oldest, null, webhook: null, CancellationToken.None);
        var oldestNamed = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, oldest, oldestId, webhook: null, CancellationToken.None);
        var middleNamed = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, middle, middleId, webhook: null, CancellationToken.None);

        // Assert
        Assert.False(oldestAny.IsValid);
        Assert.Equal(VerificationFailure.SignatureMismatch, oldestAny.Failure);
        Assert.False(oldestNamed.IsValid);
        Assert.Equal(VerificationFailure.UnknownKeyId, oldestNamed.Failure);
        Assert.True(middleNamed.IsValid);
    }

    [Fact]
    public async Task VerifyAsync_VersionReplacedLongerAgoThanMaxAge_DoesNotVerify()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync(o => o.MaxVersionAge = TimeSpan.FromHours(1));
        var envelope = Read();
        harness.Rotate();
        var (signature, keyId) = await SignWithIdAsync(harness);
        harness.Rotate();
        await harness.AdvanceAsync(harness.Options.RefreshInterval);
        var justAfterRotation = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, keyId, webhook: null, CancellationToken.None);

        // Act: the age limit applies at the moment of use, not only at the next refresh.
        harness.Time.Advance(TimeSpan.FromHours(1));
        var anHourLater = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, keyId, webhook: null, CancellationToken.None);

        // Assert
        Assert.True(justAfterRotation.IsValid);
        Assert.False(anHourLater.IsValid);
        Assert.Equal(VerificationFailure.UnknownKeyId, anHourLater.Failure);
    }

    [Fact]
    public async Task VerifyAsync_PreviousVersionDisabled_IsRevokedAtNextRefresh()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var envelope = Read();
        var first = harness.Rotate();
        var (signature, _) = await SignWithIdAsync(harness);
        harness.Rotate();
        await harness.AdvanceAsync(harness.Options.RefreshInterval);
        var beforeDisabled = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, null, webhook: null, CancellationToken.None);

        // Act
        harness.Server.Disable(KeyVaultHarness.SecretName, first);
        await harness.AdvanceAsync(harness.Options.RefreshInterval);
        var outcome = await harness.Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, null, webhook: null, CancellationToken.None);

        // Assert: the previous version verified while it was enabled, so only disabling it revoked it.
        Assert.True(beforeDisabled.IsValid);
        Assert.False(outcome.IsValid);
    }

    [Fact]
    public async Task GetVerificationKeysAsync_ManyVersions_FollowsNextLinkPagesNewestFirst()
    {
        // Arrange: five versions, two per page.
        await using var harness = await KeyVaultHarness.StartAsync(o => o.AcceptedPreviousVersions = 3);
        var versions = new List<string>();
        for (var i = 0; i < 5; i++)
        {
            versions.Add(harness.Rotate());
            harness.Time.Advance(TimeSpan.FromSeconds(1));
        }

        // Act
        var keys = await harness.Source.GetVerificationKeysAsync(CancellationToken.None);

        // Assert
        Assert.Equal(versions.AsEnumerable().Reverse().Take(4), keys.Select(k => k.KeyId));
        Assert.Equal(3, harness.Server.ListReads);
    }

    [Fact]
    public async Task Refresh_UnchangedVersions_FetchesOnlyTheCurrentSecretAndTheList()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        harness.Time.Advance(TimeSpan.FromSeconds(1));
        harness.Rotate();
        await harness.Source.GetCurrentKeyAsync(CancellationToken.None);
        var readsAfterFirstLoad = harness.Server.SecretReads;

        // Act
        await harness.AdvanceAsync(harness.Options.RefreshInterval);

        // Assert: the earlier version's value is cached (versions never change), only the latest is re-read.
        Assert.Equal(2, readsAfterFirstLoad);
        Assert.Equal(3, harness.Server.SecretReads);
    }

    private static WidgetEnvelope Read()
    {
        using var stream = new MemoryStream(Input, writable: false);
        return new WidgetEnvelopeReader().Read(stream);
    }

    private static async Task<string> SignAsync(KeyVaultHarness harness) => (await SignWithIdAsync(harness)).KeyId;

    private static async Task<(Signature Signature, string KeyId)> SignWithIdAsync(KeyVaultHarness harness)
    {
        using var signed = await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);
        return (signed.Signature, signed.KeyId);
    }
}
