using System.Buffers;
using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;
using WidgetSigning.SpareCores;
using WidgetSigning.Tests.Support;

namespace WidgetSigning.Tests.Hashing;

/// <summary>
/// A key's MAC fed while writing (<see cref="HashingBufferWriter"/> in line, or <see cref="OverlappedHashingBufferWriter"/>
/// on another thread too) is the HMAC of exactly the bytes written, and abandoned MACs never sign again.
/// </summary>
public sealed class KeyMacsTests
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
    public void Write_AnyChunking_IsTheHmacOfTheBytesWritten(int overlapChunk, int length)
    {
        // Arrange
        var services = new TestServices();
        var key = new SigningKey("k", Material);
        var bytes = BufferWriterPieces.Random(length, seed: length);
        using var stream = services.Streams.GetStream("test");

        // Act
        var signature = SignWhileWriting(key, stream, bytes, BufferWriterPieces.Write, overlapChunk);

        // Assert
        Assert.Equal(HMACSHA256.HashData(Material, bytes), signature.Bytes.ToArray());
        Assert.Equal(bytes, stream.GetReadOnlySequence().ToArray());
    }

    [Theory]
    [InlineData(16 * 1024)]
    [InlineData(1000)]
    public void Write_OverlappedFromManyThreads_EachIsTheHmacOfItsBytes(int chunk)
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
            signatures[i] = SignWhileWriting(key, stream, inputs[i], BufferWriterPieces.Write, chunk).Bytes.ToArray();
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
    public void Write_WriterFailsMidway_FailsAndTheNextSignatureIsUnaffected(int overlapChunk)
    {
        // Arrange
        var services = new TestServices();
        var key = new SigningKey("k", Material);
        var bytes = BufferWriterPieces.Random(300_000, seed: 5);

        // Act
        using (var broken = services.Streams.GetStream("test"))
        {
            Assert.Throws<InvalidOperationException>(() => SignWhileWriting(key, broken, bytes, static (writer, b) =>
            {
                BufferWriterPieces.Write(writer, b.AsSpan(0, 200_000).ToArray());
                throw new InvalidOperationException("writer failed");
            }, overlapChunk));
        }

        using var stream = services.Streams.GetStream("test");
        var signature = SignWhileWriting(key, stream, bytes, BufferWriterPieces.Write, overlapChunk);

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
            Assert.Throws<ArgumentException>(() => services.Signer.SignWith(envelope));
        }

        Assert.Equal(0, services.Streams.SmallPoolInUseSize);
        Assert.Equal(0, services.Streams.LargePoolInUseSize);
    }

    // As the signer feeds one receiver's key: the plain MAC (and the canonical digest) in one pass, abandoned on failure.
    private static Signature SignWhileWriting(SigningKey key, IBufferWriter<byte> destination, byte[] bytes, Action<IBufferWriter<byte>, byte[]> write, int overlapChunk)
    {
        var macs = KeyMacs.PlainOnly([new ReceiverKeys(ReceiverId.Parse("r"), new SigningKeys(key, []))]);
        try
        {
            if (overlapChunk > 0)
            {
                OverlappedHashingBufferWriter.Write(destination, macs.All, overlapChunk, bytes, write);
            }
            else
            {
                write(new HashingBufferWriter(destination, macs.All), bytes);
            }
        }
        catch
        {
            macs.Abandon();
            throw;
        }

        return macs.Complete()[macs.PlainAt(0)];
    }
}
