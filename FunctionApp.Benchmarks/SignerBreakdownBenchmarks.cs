using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using FunctionApp.Benchmarks.Variants;
using WidgetSigning.Envelopes;
using WidgetSigning.Signing;
using Microsoft.IO;

namespace FunctionApp.Benchmarks;

/// <summary>
/// Where our signer's time goes on the seed envelope (3,000 widgets, ~1.1 MB canonical), and every way of
/// producing the signature that was tried, all as ratios to the seed's RecyclableMemoryStream method in
/// this one class: the limits (hashing alone, writing alone), the stages, the variants, and the signer.
/// </summary>
[MemoryDiagnoser]
public class SignerBreakdownBenchmarks
{
    private BenchmarkData _data = null!;
    private EnvelopeSigner _signer = null!;
    private RecyclableMemoryStreamManager _streams = null!;
    private RecyclableMemoryStream _filled = null!;
    private byte[] _canonical = null!;
    private NullBufferWriter _nullWriter = null!;

    /// <summary>Builds the envelope, a pooled stream already holding its canonical bytes, and checks every variant signs alike.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        _signer = SignerFactory.Create(out _streams);
        var expected = SignatureGuard.EnsureSameSignature(_data, _signer);
        SignatureGuard.EnsureEachFormAlone(_data, _signer);
        _filled = _streams.GetStream("breakdown");
        WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(_data.Ours, (Stream)_filled);
        using var canonical = new MemoryStream();
        WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(_data.Ours, canonical);
        _canonical = canonical.ToArray();
        _nullWriter = new NullBufferWriter();

        string[] variants =
        [
            Variant0_StagedThenHash(), Variant1_DirectThenHash(), Variant2_DirectHashPerBlock(), Variant2b_DirectHashPer16KB(),
            Variant2c_DirectHashPer4KB(), Variant3_Overlapped64KB(), Variant3b_Overlapped16KB(),
        ];
        if (variants.Any(v => v != expected))
        {
            throw new InvalidOperationException($"A signing variant disagrees with the signer ({expected}): {string.Join(", ", variants)}.");
        }
    }

    /// <summary>Returns the stream's blocks.</summary>
    [GlobalCleanup]
    public void Cleanup() => _filled.Dispose();

    /// <summary>The seed's best: serialize into a <c>RecyclableMemoryStream</c> from a default manager, <c>ComputeHash(Stream)</c>.</summary>
    [Benchmark(Baseline = true)]
    public string Seed_RecyclableMemoryStream() => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(_data.Seed);

    /// <summary>Limit: HMAC-SHA256 alone over the canonical bytes in one array (the physical floor for signing).</summary>
    [Benchmark]
    public byte[] Limit_HmacSha256_CanonicalBytes() => HMACSHA256.HashData(BenchmarkData.KeyBytes, _canonical);

    /// <summary>Limit: HMAC-SHA256 over the same bytes in pooled blocks (pooled incremental hash).</summary>
    [Benchmark]
    public string Limit_HmacOverPooledBlocks() => BenchmarkData.Key.Sign(_filled.GetReadOnlySequence()).ToHex();

    /// <summary>Writer alone, through its 16 KB staging buffer into <see cref="Stream.Null"/>.</summary>
    [Benchmark]
    public void Writer_Staged_StreamNull() => WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(_data.Ours, Stream.Null);

    /// <summary>Writer alone, into one reused 64 KB span (no staging, no stream): its pure cost.</summary>
    [Benchmark]
    public void Writer_NullBufferWriter() => CanonicalUtf8Writer.Write(_data.Ours, _nullWriter);

    /// <summary>Writer into pooled blocks through the staging buffer and <c>Write</c> (no hash).</summary>
    [Benchmark]
    public long Writer_Staged_IntoPooledBlocks()
    {
        using var stream = _streams.GetStream("breakdown", WidgetSigning.Envelopes.CanonicalUtf8Writer.MinimumLength(_data.Ours));
        WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(_data.Ours, (Stream)stream);
        return stream.Length;
    }

    /// <summary>Writer straight into pooled blocks with <c>GetSpan</c>/<c>Advance</c> (no hash).</summary>
    [Benchmark]
    public long Writer_Direct_IntoPooledBlocks()
    {
        using var stream = _streams.GetStream("breakdown", WidgetSigning.Envelopes.CanonicalUtf8Writer.MinimumLength(_data.Ours));
        CanonicalUtf8Writer.Write(_data.Ours, (System.Buffers.IBufferWriter<byte>)stream);
        return stream.Length;
    }

    /// <summary>Variant 0 (the first signer): staging buffer + <c>Write</c>, then hash every block afterwards.</summary>
    [Benchmark]
    public string Variant0_StagedThenHash() => SigningVariants.StagedThenHash(_streams, _data.Ours, BenchmarkData.Key);

    /// <summary>Variant 1: straight into the blocks, then hash afterwards.</summary>
    [Benchmark]
    public string Variant1_DirectThenHash() => SigningVariants.DirectThenHash(_streams, _data.Ours, BenchmarkData.Key);

    /// <summary>Variant 2: straight into the blocks, each 64 KB block hashed as soon as it is full.</summary>
    [Benchmark]
    public string Variant2_DirectHashPerBlock() => SigningVariants.DirectHashPerBlock(_streams, _data.Ours, BenchmarkData.Key);

    /// <summary>Variant 2b: as 2, hashed every 16 KB.</summary>
    [Benchmark]
    public string Variant2b_DirectHashPer16KB() => SigningVariants.DirectHashPerChunk(_streams, _data.Ours, BenchmarkData.Key, 16 * 1024);

    /// <summary>Variant 2c: as 2, hashed every 4 KB.</summary>
    [Benchmark]
    public string Variant2c_DirectHashPer4KB() => SigningVariants.DirectHashPerChunk(_streams, _data.Ours, BenchmarkData.Key, 4 * 1024);

    /// <summary>Variant 3: writing and hashing overlapped on two threads, 64 KB chunks.</summary>
    [Benchmark]
    public string Variant3_Overlapped64KB() => SigningVariants.Overlapped(_streams, _data.Ours, BenchmarkData.Key, 64 * 1024);

    /// <summary>Variant 3b: writing and hashing overlapped on two threads, 16 KB chunks.</summary>
    [Benchmark]
    public string Variant3b_Overlapped16KB() => SigningVariants.Overlapped(_streams, _data.Ours, BenchmarkData.Key, 16 * 1024);

    /// <summary>Production: <see cref="EnvelopeSigner.SignAsync(WidgetSigning.Envelopes.WidgetEnvelope, SignRequest, CancellationToken)"/> with both forms (the default), then hex.</summary>
    [Benchmark]
    public string EnvelopeSigner_Sign()
    {
        using var signed = _signer.Sign(_data.Ours);
        return signed.Signature.ToHex();
    }

    /// <summary>Production with the plain form alone: one MAC chain.</summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_PlainOnly()
    {
        using var signed = _signer.Sign(_data.Ours, SignatureForms.Plain);
        return signed.Signature.ToHex();
    }

    /// <summary>Production with the Standard Webhooks form alone: one MAC chain over <c>id.timestamp.</c> + the bytes.</summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_WebhookOnly()
    {
        using var signed = _signer.Sign(_data.Ours, SignatureForms.Webhook);
        return signed.Webhook!.Signature;
    }
}
