using System.Buffers;
using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;
using WidgetSigning.Tests.Support;

namespace WidgetSigning.Tests.Hashing;

/// <summary>Hashing while writing (in line, or overlapped on another thread) gives the HMAC of exactly the bytes written.</summary>
public sealed class SigningKeyHashingTests
{
    private static readonly byte[] Material = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();

    [Theory]
    [InlineData(0, 10)]
    [InlineData(0, 700_000)]
    [InlineData(16 * 1024, 10)]
    [InlineData(16 * 1024, 700_000)]
    [InlineData(64 * 1024, 700_000)]
    [InlineData(1000, 65_537)]
    [InlineData(1000, 700_000)]
    public void SignWhileWriting_AnyChunking_IsTheHmacOfTheBytesWritten(int overlapChunk, int length)
    {
        // Arrange
        var services = new TestServices();
        var key = new SigningKey("k", Material);
        var bytes = BufferWriterPieces.Random(length, seed: length);
        using var stream = services.Streams.GetStream("test");

        // Act
        var signature = key.SignWhileWriting(stream, bytes, BufferWriterPieces.Write, overlapChunk);

        // Assert
        Assert.Equal(HMACSHA256.HashData(Material, bytes), signature.Bytes.ToArray());
        Assert.Equal(bytes, stream.GetReadOnlySequence().ToArray());
    }

    [Theory]
    [InlineData(16 * 1024)]
    [InlineData(1000)]
    public void SignWhileWriting_OverlappedFromManyThreads_EachIsTheHmacOfItsBytes(int chunk)
    {
        // Arrange: more signers than cores, so some hashing work items start late or never (the writer then hashes
        // itself, a few chunks behind its writing).
        var services = new TestServices();
        var key = new SigningKey("k", Material);
        var inputs = Enumerable.Range(0, 32).Select(i => BufferWriterPieces.Random(100_000 + (i * 7919), seed: i)).ToArray();

        // Act
        var signatures = new byte[inputs.Length][];
        Parallel.For(0, inputs.Length, new ParallelOptions { MaxDegreeOfParallelism = 16 }, i =>
        {
            using var stream = services.Streams.GetStream("test");
            signatures[i] = key.SignWhileWriting(stream, inputs[i], BufferWriterPieces.Write, chunk).Bytes.ToArray();
        });

        // Assert
        for (var i = 0; i < inputs.Length; i++)
        {
            Assert.Equal(HMACSHA256.HashData(Material, inputs[i]), signatures[i]);
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(16 * 1024)]
    public void SignWhileWriting_WriterFailsMidway_FailsAndTheNextSignatureIsUnaffected(int overlapChunk)
    {
        // Arrange
        var services = new TestServices();
        var key = new SigningKey("k", Material);
        var bytes = BufferWriterPieces.Random(300_000, seed: 5);

        // Act
        using (var broken = services.Streams.GetStream("test"))
        {
            Assert.Throws<InvalidOperationException>(() => key.SignWhileWriting(broken, bytes, static (writer, b) =>
            {
                BufferWriterPieces.Write(writer, b.AsSpan(0, 200_000).ToArray());
                throw new InvalidOperationException("writer failed");
            }, overlapChunk));
        }

        using var stream = services.Streams.GetStream("test");
        var signature = key.SignWhileWriting(stream, bytes, BufferWriterPieces.Write, overlapChunk);

        // Assert: a half-fed hash instance never signs again.
        Assert.Equal(HMACSHA256.HashData(Material, bytes), signature.Bytes.ToArray());
        Assert.Equal(0, services.Streams.SmallPoolInUseSize - stream.Capacity);
    }

    [Fact]
    public void Sign_LargeEnvelopeThatCannotBeWritten_ReturnsEveryBlock()
    {
        // Arrange: ~400 KB of text (large enough to be hashed on another core when one is spare), then a lone surrogate.
        var services = new TestServices();
        var (ours, _) = RandomEnvelopes.Create(seed: 9, widgets: 2);
        var w = ours.Widgets[1];
        var broken = new WidgetSigning.Envelopes.Widget
        {
            Id = w.Id, CreatedUtc = w.CreatedUtc,
            Property0 = new string('a', 400_000), Property1 = "x\ud800", Property2 = w.Property2, Property3 = w.Property3, Property4 = w.Property4,
            Property5 = w.Property5, Property6 = w.Property6, Property7 = w.Property7, Property8 = w.Property8, Property9 = w.Property9,
        };
        var envelope = new WidgetSigning.Envelopes.WidgetEnvelope([ours.Widgets[0], broken]);

        // Act + Assert
        for (var i = 0; i < 5; i++)
        {
            Assert.Throws<ArgumentException>(() => services.Signer.SignWith(envelope, services.Key));
        }

        Assert.Equal(0, services.Streams.SmallPoolInUseSize);
        Assert.Equal(0, services.Streams.LargePoolInUseSize);
    }
}
