using System.Security.Cryptography;
using System.Text;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// A full Ed25519 rotation against the HTTPS fake vault, the real SecretClient and a fake clock: the staged key is
/// published before it signs, the replaced key keeps signing beside it for two refresh intervals, then only verifies,
/// then is gone; a receiver holding any set it fetched within one refresh interval never meets a signature it cannot check.
/// </summary>
public sealed class Ed25519RotationTests
{
    private static readonly ReceiverId C = ReceiverId.Parse("c");

    [Fact]
    public async Task Rotation_StagedThenCurrentThenRetiringThenGone_AReceiverWithTheLastSetAlwaysVerifies()
    {
        // Arrange: c's first key; the receiver fetches its set.
        await using var harness = await ReceiverVaultHarness.StartAsync(vault: o => o.MaxVersionAge = TimeSpan.FromHours(3));
        var interval = harness.Options.RefreshInterval;
        var step = TimeSpan.FromMinutes(1);
        var v1 = SetEd25519(harness, notBefore: null);
        var held = await PublicKeysAsync(harness);
        Assert.Equal([v1], held.Keys);

        // Act 1: v2 staged an hour ahead, seen at the next refresh.
        var notBefore = harness.Time.GetUtcNow().AddHours(1);
        var v2 = SetEd25519(harness, notBefore);
        await harness.AdvanceAsync(interval, step);
        var staged = await harness.Source.DescribeKeysAsync(C, CancellationToken.None);

        // Assert 1: published, not signing.
        Assert.Contains(staged, k => k.KeyId == v2 && k.State == KeyState.Staged && k.PublicKey is not null);
        Assert.Equal([v1], await SignersAsync(harness));
        Assert.True(await VerifiesWithAsync(harness, held));

        // Act 2: the receiver refreshes on schedule; the clock passes v2's nbf.
        held = await PublicKeysAsync(harness);
        await harness.AdvanceAsync(notBefore - harness.Time.GetUtcNow() + TimeSpan.FromSeconds(30), step);

        // Assert 2: v2 signs, v1 still signs beside it; the set held since before the switch verifies.
        Assert.Equal([v2, v1], await SignersAsync(harness));
        Assert.True(await VerifiesWithAsync(harness, held));
        Assert.True(await VerifiesWithAsync(harness, new Dictionary<string, Ed25519Key> { [v1] = held[v1] }));

        // Act 3: two refresh intervals later; the receiver has refreshed meanwhile.
        await harness.AdvanceAsync(interval, step);
        held = await PublicKeysAsync(harness);
        await harness.AdvanceAsync(interval, step);

        // Assert 3: only v2 signs; v1 is retiring in the set, and the set held verifies.
        Assert.Equal([v2], await SignersAsync(harness));
        Assert.Contains(await harness.Source.DescribeKeysAsync(C, CancellationToken.None), k => k.KeyId == v1 && k.State == KeyState.Retiring && k.ReplacedOn is not null);
        Assert.True(await VerifiesWithAsync(harness, held));

        // Act 4: past KeyVault:MaxVersionAge after v1 was replaced.
        await harness.AdvanceAsync(TimeSpan.FromHours(3), TimeSpan.FromMinutes(5));

        // Assert 4: v1 is gone from the set.
        Assert.Equal([v2], (await PublicKeysAsync(harness)).Keys);
    }

    private static string SetEd25519(ReceiverVaultHarness harness, DateTimeOffset? notBefore) =>
        harness.Server.SetSecret(harness.Options.ReceiverSecretPrefix + "c", "whsk_" + Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)), notBefore: notBefore);

    // What a receiver stores from GET /api/receivers/c/jwks: every published key by its kid.
    private static async Task<Dictionary<string, Ed25519Key>> PublicKeysAsync(ReceiverVaultHarness harness) =>
        (await harness.Source.DescribeKeysAsync(C, CancellationToken.None)).Where(k => k.PublicKey is not null).ToDictionary(k => k.KeyId, k => k.PublicKey!);

    private static async Task<List<string>> SignersAsync(ReceiverVaultHarness harness)
    {
        var keys = await harness.Source.GetSigningKeysAsync(C, CancellationToken.None);
        return Ed25519Pass.SignersOf(new ReceiverKeys(C, keys))!.Select(s => s.Key.KeyId).ToList();
    }

    // Signs a message as the service does now (every v1a entry) and checks it as a receiver holding only `held` would.
    private static async Task<bool> VerifiesWithAsync(ReceiverVaultHarness harness, Dictionary<string, Ed25519Key> held)
    {
        var keys = await harness.Source.GetSigningKeysAsync(C, CancellationToken.None);
        var message = Encoding.ASCII.GetBytes("msg_rotation.1795000259.{}");
        foreach (var (key, _) in Ed25519Pass.SignersOf(new ReceiverKeys(C, keys))!)
        {
            var signature = new byte[Ed25519Key.SignatureBytes];
            key.Ed25519!.Sign(message, signature);
            if (held.Values.Any(k => k.Verify(message, signature)))
            {
                return true;
            }
        }

        return false;
    }
}
