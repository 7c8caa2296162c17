using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// Each receiver's key rotates, is revoked and expires on its own, against the HTTPS fake vault and the real SecretClient:
/// what happens to receiver <c>a</c>'s secret never changes what receiver <c>b</c> signs with.
/// </summary>
public sealed class KeyVaultReceiverRotationTests
{
    private static readonly ReceiverId A = ReceiverId.Parse("a");
    private static readonly ReceiverId B = ReceiverId.Parse("b");

    [Fact]
    public async Task GetSigningKeysAsync_AStagedBNot_OnlyASignsWithAStagedKey()
    {
        // Arrange: a has a current and a staged version, b only a current one.
        await using var harness = await ReceiverVaultHarness.StartAsync();
        var aCurrent = harness.SetKey("a");
        var aStaged = harness.SetKey("a", notBefore: harness.Time.GetUtcNow().AddHours(1));
        var bCurrent = harness.SetKey("b");

        // Act
        var a = await harness.Source.GetSigningKeysAsync(A, CancellationToken.None);
        var b = await harness.Source.GetSigningKeysAsync(B, CancellationToken.None);

        // Assert
        Assert.Equal(aCurrent, a.Current.KeyId);
        Assert.Equal([aStaged], a.Staged.Select(k => k.KeyId));
        Assert.Equal(bCurrent, b.Current.KeyId);
        Assert.Empty(b.Staged);
    }

    [Fact]
    public async Task GetSigningKeysAsync_ARevokedAttack_AUnavailableNamingAWhileBSigns()
    {
        // Arrange: both sign; then a's current version is disabled (revoked).
        await using var harness = await ReceiverVaultHarness.StartAsync();
        var aVersion = harness.SetKey("a");
        var bVersion = harness.SetKey("b");
        await harness.Source.GetSigningKeysAsync(A, CancellationToken.None);
        await harness.Source.GetSigningKeysAsync(B, CancellationToken.None);
        harness.Server.Disable(harness.Options.ReceiverSecretPrefix + "a", aVersion);

        // Act: one refresh interval later.
        await harness.AdvanceAsync(harness.Options.RefreshInterval, TimeSpan.FromSeconds(30));
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, () => harness.Source.GetSigningKeysAsync(A, CancellationToken.None).AsTask());
        var b = await harness.Source.GetSigningKeysAsync(B, CancellationToken.None);

        // Assert
        ProblemAssert.NamesReceiver(A.Value, refused);
        Assert.Contains("receiver-a", refused.Message, StringComparison.Ordinal);
        Assert.True(refused.Problem.RetryAfter >= TimeSpan.FromSeconds(1));
        Assert.Equal(bVersion, b.Current.KeyId);
        Assert.Empty(await harness.Source.GetVerificationKeysAsync(A, CancellationToken.None));
    }

    [Fact]
    public async Task GetSigningKeysAsync_AExpired_AUnavailableNamingAWhileBSigns()
    {
        // Arrange: a's only version expires in ten minutes; b's never does.
        await using var harness = await ReceiverVaultHarness.StartAsync();
        harness.SetKey("a", expiresOn: harness.Time.GetUtcNow().AddMinutes(10));
        var bVersion = harness.SetKey("b");
        await harness.Source.GetSigningKeysAsync(A, CancellationToken.None);
        await harness.Source.GetSigningKeysAsync(B, CancellationToken.None);

        // Act: past a's exp (checked at each use, before any refresh).
        await harness.AdvanceAsync(TimeSpan.FromMinutes(11), TimeSpan.FromMinutes(1));
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, () => harness.Source.GetSigningKeysAsync(A, CancellationToken.None).AsTask());
        var b = await harness.Source.GetSigningKeysAsync(B, CancellationToken.None);

        // Assert
        ProblemAssert.NamesReceiver(A.Value, refused);
        Assert.Contains("receiver-a", refused.Message, StringComparison.Ordinal);
        Assert.Equal(bVersion, b.Current.KeyId);
    }
}
