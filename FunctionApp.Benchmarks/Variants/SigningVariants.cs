using WidgetSigning.Envelopes;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using Microsoft.IO;

namespace FunctionApp.Benchmarks.Variants;

/// <summary>
/// The ways of producing the signature that were measured, side by side, each returning the hex signature of
/// the same canonical bytes in a pooled stream sized as <see cref="EnvelopeSigner"/> sizes it. Production
/// (<see cref="WidgetSigning.SpareCores.CanonicalPass"/>) writes directly and hashes per block, or overlapped in 16 KB
/// chunks when a core is spare. Variants the product dropped are compared against a git revision
/// (<c>scripts/bench-against.sh</c>), not kept here.
/// </summary>
internal static class SigningVariants
{
    private const string Tag = "variant";

    /// <summary>The first signer's way: a 16 KB staging buffer copied into the blocks with <c>Write</c>, then every block hashed afterwards.</summary>
    public static string StagedThenHash(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key)
    {
        using var stream = streams.GetStream(Tag, CanonicalUtf8Writer.MinimumLength(envelope));
        CanonicalUtf8Writer.Write(envelope, (Stream)stream);
        return key.Sign(stream.GetReadOnlySequence()).ToHex();
    }

    /// <summary>Written into the blocks through <c>GetSpan</c>/<c>Advance</c> (no staging copy), then hashed afterwards.</summary>
    public static string DirectThenHash(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key)
    {
        using var stream = streams.GetStream(Tag, CanonicalUtf8Writer.MinimumLength(envelope));
        CanonicalUtf8Writer.Write(envelope, (System.Buffers.IBufferWriter<byte>)stream);
        return key.Sign(stream.GetReadOnlySequence()).ToHex();
    }

    /// <summary>Written into the blocks, each block hashed as soon as it is full (production).</summary>
    public static string DirectHashPerBlock(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key)
    {
        using var stream = streams.GetStream(Tag, CanonicalUtf8Writer.MinimumLength(envelope));
        return SignWhileWriting(key, stream, envelope, 0).ToHex();
    }

    /// <summary>As <see cref="DirectHashPerBlock"/>, but hashed every <paramref name="chunk"/> bytes (closer to L1 than a 64 KB block).</summary>
    public static string DirectHashPerChunk(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key, int chunk)
    {
        using var stream = streams.GetStream(Tag, CanonicalUtf8Writer.MinimumLength(envelope));
        var limited = new ChunkLimitingBufferWriter(stream, chunk);
        return SignWhileWriting(key, limited, envelope, 0).ToHex();
    }

    /// <summary>Written on this thread while a thread-pool thread hashes each committed chunk of <paramref name="chunk"/> bytes, whatever the load.</summary>
    public static string Overlapped(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key, int chunk)
    {
        using var stream = streams.GetStream(Tag, CanonicalUtf8Writer.MinimumLength(envelope));
        return SignWhileWriting(key, stream, envelope, chunk).ToHex();
    }

    /// <summary>
    /// Both MACs a signature carries (<c>X-Signature</c>'s and the Standard Webhooks one over
    /// <paramref name="prefix"/> + the bytes) fed while writing, overlapped in 16 KB chunks, the hashing shared by the
    /// two threads, as <see cref="EnvelopeSigner"/> does with a spare core. Returns <c>X-Signature</c>'s hex.
    /// </summary>
    public static string TwoMacsShared(RecyclableMemoryStreamManager streams, WidgetEnvelope envelope, SigningKey key, byte[] prefix)
    {
        using var stream = streams.GetStream(Tag, CanonicalUtf8Writer.MinimumLength(envelope));
        var macs = RentTwo(key, prefix);
        WidgetSigning.SpareCores.OverlappedHashingBufferWriter.Write(stream, new HashTargets(macs, 0, 2), 16 * 1024, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks));
        return Complete(key, macs);
    }

    /// <summary>
    /// Limit: both MACs a signature with both forms carries, one after the
    /// other over <paramref name="canonical"/> in one array: <c>X-Signature</c>'s and the one over <paramref name="prefix"/>
    /// + the bytes. Returns a byte of each, so neither is optimised away.
    /// </summary>
    public static int BothMacsOneAfterTheOther(byte[] canonical, byte[] prefix)
    {
        Span<byte> mac = stackalloc byte[32];
        using var webhook = System.Security.Cryptography.IncrementalHash.CreateHMAC(System.Security.Cryptography.HashAlgorithmName.SHA256, Infrastructure.BenchmarkData.KeyBytes);
        webhook.AppendData(prefix);
        webhook.AppendData(canonical);
        webhook.GetHashAndReset(mac);
        return System.Security.Cryptography.HMACSHA256.HashData(Infrastructure.BenchmarkData.KeyBytes, canonical)[0] + mac[0];
    }

    // One key's HMAC fed while the bytes are written: per committed span, or with chunk above 0 on another core too.
    private static Signature SignWhileWriting(SigningKey key, System.Buffers.IBufferWriter<byte> destination, WidgetEnvelope envelope, int chunk)
    {
        var hash = key.RentHash();
        if (chunk > 0)
        {
            WidgetSigning.SpareCores.OverlappedHashingBufferWriter.Write(destination, new HashTargets(hash), chunk, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks));
        }
        else
        {
            CanonicalUtf8Writer.Write(envelope, new HashingBufferWriter(destination, new HashTargets(hash)));
        }

        return key.Complete(hash);
    }

    private static System.Security.Cryptography.IncrementalHash[] RentTwo(SigningKey key, byte[] prefix)
    {
        var macs = new[] { key.RentHash(), key.RentHash() };
        macs[1].AppendData(prefix);
        return macs;
    }

    // Both completed as the signer completes them (and back to the key's pool); X-Signature's is the one compared.
    private static string Complete(SigningKey key, System.Security.Cryptography.IncrementalHash[] macs)
    {
        var signature = key.Complete(macs[0]).ToHex();
        _ = key.Complete(macs[1]);
        return signature;
    }
}
