using System.Buffers;
using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Hashing;
using WidgetSigning.SpareCores;
using WidgetSigning.Tests.Support;

namespace WidgetSigning.Tests.SpareCores;

/// <summary>
/// Several HMACs fed while writing, the hashing shared between the writer's thread and a spare core: each HMAC is
/// still the MAC of its own prefix followed by exactly the bytes written, whoever fed which chunk.
/// </summary>
public sealed class OverlappedHashingBufferWriterTests
{
    private static readonly byte[] Material = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();

    [Theory]
    [InlineData(1, 16 * 1024, 700_000)]
    [InlineData(2, 16 * 1024, 1_100_000)]
    [InlineData(2, 1000, 700_000)]
    [InlineData(4, 16 * 1024, 700_000)]
    [InlineData(6, 1000, 700_000)]
    [InlineData(2, 64 * 1024, 65_537)]
    [InlineData(2, 16 * 1024, 10)]
    public void Write_SeveralMacsAnyChunking_EachIsTheHmacOfItsPrefixAndTheBytes(int macs, int chunk, int length)
    {
        // Arrange
        var services = new TestServices();
        var bytes = BufferWriterPieces.Random(length, seed: length + macs);

        // Act + Assert: written at the canonical writer's pace, until the other thread has hashed part of it (the pool
        // may be slow to start it on a busy machine); every attempt must give the right MACs and bytes.
        var shared = UntilShared(() =>
        {
            using var stream = services.Streams.GetStream("test");
            var (hashes, prefixes) = CreateMacs(macs);
            var appends = OverlappedHashingBufferWriter.Write(stream, new HashTargets(hashes, 0, macs), chunk, bytes, static (w, b) => BufferWriterPieces.WriteAtPace(w, b, 2000));
            AssertEachIsTheHmacOf(hashes, prefixes, bytes);
            Assert.Equal(bytes, stream.GetReadOnlySequence().ToArray());
            return appends;
        });
        Assert.True(shared > 0 || length < 4 * chunk, "the other thread never took part");
    }

    [Theory]
    [InlineData(16 * 1024)]
    [InlineData(1000)]
    public void Write_WriterPacedSoBothThreadsHash_EachIsTheHmacOfItsPrefixAndTheBytes(int chunk)
    {
        // Arrange: written at a pace, so the writer reaches for chunks of hashing while the other thread hashes too; with
        // 1,000-byte chunks the other thread, feeding two HMACs, falls behind the ring: the writer then hashes the
        // furthest-behind HMAC itself or waits for a slot.
        var services = new TestServices();
        var bytes = BufferWriterPieces.Random(900_000, seed: 3);

        // Act + Assert
        var shared = UntilShared(() =>
        {
            using var stream = services.Streams.GetStream("test");
            var (hashes, prefixes) = CreateMacs(2);
            var appends = OverlappedHashingBufferWriter.Write(stream, new HashTargets(hashes, 0, 2), chunk, bytes, static (w, b) => BufferWriterPieces.WriteAtPace(w, b, 1000));
            AssertEachIsTheHmacOf(hashes, prefixes, bytes);
            return appends;
        });
        Assert.True(shared > 0, "the other thread never took part");
    }

    [Theory]
    [InlineData(16 * 1024)]
    [InlineData(1000)]
    public void Write_SeveralMacsFromManyThreads_EachIsTheHmacOfItsPrefixAndTheBytes(int chunk)
    {
        // Arrange: more writers than cores, so some hashing work items start late, mid-way or never (the writer then
        // hashes everything itself; with two HMACs or more it falls a whole 64-chunk ring behind and hashes as the ring
        // fills).
        var inputs = Enumerable.Range(0, 32).Select(i => BufferWriterPieces.Random(100_000 + (i * 7919), seed: i)).ToArray();
        var services = new TestServices();

        // Act + Assert
        Parallel.For(0, inputs.Length, new ParallelOptions { MaxDegreeOfParallelism = 16 }, i =>
        {
            using var stream = services.Streams.GetStream("test");
            var (hashes, prefixes) = CreateMacs(1 + (i % 4));
            OverlappedHashingBufferWriter.Write(stream, new HashTargets(hashes, 0, hashes.Length), chunk, inputs[i], BufferWriterPieces.Write);
            AssertEachIsTheHmacOf(hashes, prefixes, inputs[i]);
        });
    }

    [Fact]
    public void Write_WriterFailsMidway_ThrowsItsErrorAndTheOtherThreadHasLetGo()
    {
        // Arrange
        var services = new TestServices();
        var bytes = BufferWriterPieces.Random(600_000, seed: 11);
        var (hashes, _) = CreateMacs(2);
        using var stream = services.Streams.GetStream("test");

        // Act
        var error = Assert.Throws<InvalidOperationException>(() => OverlappedHashingBufferWriter.Write(stream, new HashTargets(hashes, 0, 2), 16 * 1024, bytes, static (writer, b) =>
        {
            BufferWriterPieces.WriteAtPace(writer, b.AsSpan(0, 400_000).ToArray(), 2000);
            throw new InvalidOperationException("writer failed");
        }));

        // Assert: once Write has returned, nothing feeds the instances any more: what they hold now stays.
        var held = hashes.Select(h => h.GetCurrentHash()).ToArray();
        Thread.Sleep(50);
        Assert.Equal("writer failed", error.Message);
        Assert.Equal(held, hashes.Select(h => h.GetCurrentHash()).ToArray());
    }

    // Repeats attempt (each asserting its own result) until the other thread made some of the appends, for up to 10 s.
    private static int UntilShared(Func<int> attempt)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        int appends;
        do
        {
            appends = attempt();
        }
        while (appends == 0 && DateTime.UtcNow < deadline);

        return appends;
    }

    private static (IncrementalHash[] Hashes, byte[][] Prefixes) CreateMacs(int count)
    {
        // As KeyMacs feeds them: every second one gets a prefix first (Standard Webhooks' id.timestamp.).
        var hashes = new IncrementalHash[count];
        var prefixes = new byte[count][];
        for (var m = 0; m < count; m++)
        {
            hashes[m] = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Material);
            prefixes[m] = m % 2 == 0 ? [] : System.Text.Encoding.ASCII.GetBytes($"msg_{m}.1764000000.");
            hashes[m].AppendData(prefixes[m]);
        }

        return (hashes, prefixes);
    }

    private static void AssertEachIsTheHmacOf(IncrementalHash[] hashes, byte[][] prefixes, byte[] bytes)
    {
        for (var m = 0; m < hashes.Length; m++)
        {
            Assert.Equal(HMACSHA256.HashData(Material, prefixes[m].Concat(bytes).ToArray()), hashes[m].GetHashAndReset());
            hashes[m].Dispose();
        }
    }
}
