using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Signing;
using Microsoft.IO;

namespace FunctionApp.Benchmarks;

/// <summary>
/// Where our signer's time goes on the seed envelope, stage by stage: generating the canonical UTF-8 bytes,
/// copying them into pooled blocks, hashing the blocks.
/// </summary>
[MemoryDiagnoser]
public class SignerBreakdownBenchmarks
{
    private BenchmarkData _data = null!;
    private EnvelopeSigner _signer = null!;
    private RecyclableMemoryStreamManager _streams = null!;
    private RecyclableMemoryStream _filled = null!;

    /// <summary>Builds the envelope and a pooled stream already holding its canonical bytes.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        _signer = SignerFactory.Create(out _streams);
        SignatureGuard.EnsureSameSignature(_data, _signer);
        _filled = _streams.GetStream("breakdown");
        EnvelopeSigner.WriteCanonical(_data.Ours, _filled);
    }

    /// <summary>Returns the stream's blocks.</summary>
    [GlobalCleanup]
    public void Cleanup() => _filled.Dispose();

    /// <summary>Stage 1: the canonical UTF-8 writer into <see cref="Stream.Null"/> (generating the bytes only).</summary>
    [Benchmark(Baseline = true)]
    public void Stage1_CanonicalUtf8_StreamNull() => EnvelopeSigner.WriteCanonical(_data.Ours, Stream.Null);

    /// <summary>Stage 1+2: plus copying the bytes into pooled blocks.</summary>
    [Benchmark]
    public long Stage2_PlusPooledBlocks()
    {
        using var stream = _streams.GetStream("breakdown");
        EnvelopeSigner.WriteCanonical(_data.Ours, stream);
        return stream.Length;
    }

    /// <summary>Stage 3 alone: HMAC-SHA256 over the pooled blocks (pooled incremental hash).</summary>
    [Benchmark]
    public string Stage3_HmacOverPooledBlocks() => BenchmarkData.Key.Sign(_filled.GetReadOnlySequence()).ToHex();
    /// <summary>All stages: <see cref="EnvelopeSigner.Sign"/>.</summary>
    [Benchmark]
    public string All_EnvelopeSigner_Sign()
    {
        using var signed = _signer.Sign(_data.Ours, BenchmarkData.Key);
        return signed.Signature.ToHex();
    }
}
