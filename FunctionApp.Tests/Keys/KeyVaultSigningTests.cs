using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Keys;

/// <summary>Signing with a key read by the real SecretClient from the fake vault over HTTPS.</summary>
public sealed class KeyVaultSigningTests
{
    public static TheoryData<string> PositiveVectors => Vector.Names(reject: false);

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task SignAsync_VaultHoldsVectorsKey_MatchesSharedVectors(string name)
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        var vector = Vector.Load(name);
        var envelope = new TestServices().Read(vector.Input);

        // Act
        using var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(version, signed.KeyId);
    }

    [Fact]
    public async Task GetCurrentKeyAsync_FirstUse_AnswersChallengeThenReadsWithBearerToken()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);

        // Act
        var key = await harness.Source.GetCurrentKeyAsync(CancellationToken.None);

        // Assert
        Assert.Equal(version, key.KeyId);
        // (On a port an earlier fake vault of this run used, the SDK's per-process challenge cache may skip the 401.)
        Assert.True(harness.Server.Challenges >= 1 || harness.Server.PortUsedBefore, "the client should have met the 401 challenge");
        Assert.Contains("https://vault.azure.net/.default", harness.Credential.RequestedScopes);
        Assert.Equal(1, harness.Server.SecretReads);
    }

    [Fact]
    public async Task SignAsync_ManyRequests_ReadsKeyVaultOnlyOnce()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        var envelope = new TestServices().Read(Vector.Load("one-widget").Input);

        // Act: concurrent first use, then a stream of requests inside one refresh interval.
        await Task.WhenAll(Enumerable.Range(0, 20).Select(async _ =>
        {
            using var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);
        }));
        var readsAfterFirstUse = harness.Server.Requests;
        for (var i = 0; i < 50; i++)
        {
            using var signed = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);
        }

        // Assert
        Assert.Equal(1, harness.Server.SecretReads);
        Assert.Equal(readsAfterFirstUse, harness.Server.Requests);
    }
}
