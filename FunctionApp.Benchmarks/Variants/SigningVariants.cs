using FunctionApp.Envelopes;
using FunctionApp.Keys;
using FunctionApp.Signing;
using Microsoft.IO;

namespace FunctionApp.Benchmarks.Variants;

/// <summary>
/// The ways of producing the signature that issue 13 measured, side by side, each returning the hex signature of
/// the same canonical bytes in a pooled stream sized as <see cref="EnvelopeSigner"/> sizes it. Production
/// (<see cref="EnvelopeSigner.Sign(FunctionApp.Envelopes.WidgetEnvelope, FunctionApp.Keys.SigningKey)"/>) writes directly and hashes per block, or overlapped in 16 KB chunks when a core is spare.
/// </summary>
public static class SigningVariants
{
    private const string Tag = "variant";

    /// <summary>Before issue 13: a 16 KB staging buffer copied into the blocks with <c>Write</c>, then every block hashed afterwards.</summary>
    public static string StagedThenHash(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key)
    {
        using var stream = streams.GetStream(Tag, EnvelopeSigner.EstimateCanonicalLength(envelope));
        EnvelopeSigner.WriteCanonical(envelope, stream);
        return key.Sign(stream.GetReadOnlySequence()).ToHex();
    }

    /// <summary>Written into the blocks through <c>GetSpan</c>/<c>Advance</c> (no staging copy), then hashed afterwards.</summary>
    public static string DirectThenHash(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key)
    {
        using var stream = streams.GetStream(Tag, EnvelopeSigner.EstimateCanonicalLength(envelope));
        CanonicalUtf8Writer.Write(envelope, (System.Buffers.IBufferWriter<byte>)stream);
        return key.Sign(stream.GetReadOnlySequence()).ToHex();
    }

    /// <summary>Written into the blocks, each block hashed as soon as it is full (production).</summary>
    public static string DirectHashPerBlock(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key)
    {
        using var stream = streams.GetStream(Tag, EnvelopeSigner.EstimateCanonicalLength(envelope));
        return key.SignWhileWriting(stream, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks)).ToHex();
    }

    /// <summary>As <see cref="DirectHashPerBlock"/>, but hashed every <paramref name="chunk"/> bytes (closer to L1 than a 64 KB block).</summary>
    public static string DirectHashPerChunk(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key, int chunk)
    {
        using var stream = streams.GetStream(Tag, EnvelopeSigner.EstimateCanonicalLength(envelope));
        var limited = new ChunkLimitingBufferWriter(stream, chunk);
        return key.SignWhileWriting(limited, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks)).ToHex();
    }

    /// <summary>Written on this thread while a thread-pool thread hashes each committed chunk of <paramref name="chunk"/> bytes, whatever the load.</summary>
    public static string Overlapped(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key, int chunk)
    {
        using var stream = streams.GetStream(Tag, EnvelopeSigner.EstimateCanonicalLength(envelope));
        return key.SignWhileWriting(stream, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks), chunk).ToHex();
    }
}
