using System.Buffers;
using System.Security.Cryptography;
using System.Text;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using WidgetSigning.SpareCores;

namespace WidgetSigning.Tests.Signing;

/// <summary>
/// An envelope signed in memory with the hashing shared over two cores (<see cref="TestServices.Eager"/>) gives the
/// same bytes and MACs as the known answers and as independent HMACs, whatever the number of keys.
/// </summary>
public sealed class OverlappedSigningTests
{
    private const string WebhookId = "msg_overlapped";

    public static TheoryData<string> PositiveVectors => Vector.Names(reject: false);

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public void Sign_PositiveVectorOnTwoCores_GivesTheKnownAnswer(string name)
    {
        // Arrange
        var services = new TestServices();
        var cores = TwoCores();
        var signer = services.CreateSigner(policy: cores);
        var vector = Vector.Load(name);
        var envelope = services.Read(vector.Input);

        // Act
        using var signed = signer.SignWith(envelope);

        // Assert: the known answer, with the hashing handed to the second core.
        Assert.Equal(vector.Canonical, signed.GetCanonicalBytes().ToArray());
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(1, cores.Counters.Snapshot().SharedHashings);
    }

    [Fact]
    public async Task SignAsync_OnTwoCoresWithTwoStagedKeys_EveryMacIsItsKeysHmacOverTheCanonicalBytes()
    {
        // Arrange: a rotation with two versions staged, so six MACs are shared between the two threads.
        var services = new TestServices();
        var vector = Vector.Load("seed-3000-widgets");
        var envelope = services.Read(vector.Input);
        byte[][] material = [Vector.Key, [.. Enumerable.Range(100, 32).Select(i => (byte)i)], [.. Enumerable.Range(200, 32).Select(i => (byte)i)]];
        SigningKey[] staged = [new SigningKey("next", material[1]), new SigningKey("after-next", material[2])];
        var cores = TwoCores();
        var signer = services.CreateSigner(new FixedReceiverKeySource(services.Key, staged), policy: cores);

        // Act
        using var signed = await signer.SignAsync(envelope, SigningTestExtensions.Request(webhookId: WebhookId), CancellationToken.None);

        // Assert
        var canonical = vector.Canonical;
        Assert.Equal(canonical, signed.GetCanonicalBytes().ToArray());
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        var prefixed = Encoding.ASCII.GetBytes($"{WebhookId}.{signed.Webhook!.Timestamp}.").Concat(canonical).ToArray();
        Assert.Equal(
            material.Select(m => Convert.ToHexString(HMACSHA256.HashData(m, canonical)).ToLowerInvariant()),
            signed.Signatures.Select(s => s.Signature.ToHex()));
        Assert.Equal(
            string.Join(' ', material.Select(m => "v1," + Convert.ToBase64String(HMACSHA256.HashData(m, prefixed)))),
            signed.Webhook!.Signature);
        Assert.Equal(1, cores.Counters.Snapshot().SharedHashings);
    }

    // Eager, and deaf to other tests' work waiting in the thread pool, so the second core is always taken.
    private static SpareCorePolicy TwoCores()
    {
        var policy = TestServices.SpareCores(TestServices.Eager);
        policy.PendingWork = static () => 0;
        return policy;
    }
}
