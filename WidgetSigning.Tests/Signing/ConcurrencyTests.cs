using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Signing;

namespace WidgetSigning.Tests.Signing;

public sealed class ConcurrencyTests
{
    [Fact]
    public async Task Sign_64EnvelopesInParallel_EachGetsItsOwnSignatureAndEveryStreamIsReturned()
    {
        // Arrange: 64 different envelopes, each with an expected signature computed independently
        // (Newtonsoft reflection serializer + HMACSHA256.HashData).
        var services = new TestServices();
        var created = 0;
        var disposed = 0;
        services.Streams.StreamCreated += (_, _) => Interlocked.Increment(ref created);
        services.Streams.StreamDisposed += (_, _) => Interlocked.Increment(ref disposed);
        var cases = Enumerable.Range(1, 64).Select(seed =>
        {
            var (ours, theirs) = RandomEnvelopes.Create(seed * 7919, widgets: 20 + seed);
            var expected = Convert.ToHexString(HMACSHA256.HashData(Vector.Key, SeedShapes.SerializeWithNewtonsoft(theirs))).ToLowerInvariant();
            return (Envelope: ours, Expected: expected);
        }).ToArray();

        // Act
        var actual = await Task.WhenAll(cases.Select(c => Task.Run(async () =>
        {
            await Task.Yield();
            await using var signed = await services.Signer.SignAsync(c.Envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);
            return signed.Signature.ToHex();
        })));

        // Assert
        Assert.Equal(cases.Select(c => c.Expected), actual);
        Assert.Equal(64, created);
        Assert.Equal(created, disposed);
        Assert.Equal(0, services.Streams.SmallPoolInUseSize);
        Assert.Equal(0, services.Streams.LargePoolInUseSize);
    }
}
