using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Signing;
using Microsoft.IO;

namespace FunctionApp.Benchmarks;

/// <summary>
/// Where our signer's time goes on the seed envelope, stage by stage: generating the JSON characters,
/// encoding them to UTF-8, writing into pooled blocks, hashing the blocks. Each benchmark adds one stage to
/// the previous one, so the differences are the stages' costs.
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

    /// <summary>Stage 1: Newtonsoft's writer generating the canonical characters into <see cref="TextWriter.Null"/> (no encoding).</summary>
    [Benchmark(Baseline = true)]
    public void Stage1_JsonChars_TextWriterNull()
    {
        using var json = new CanonicalJsonTextWriter(TextWriter.Null);
        CanonicalEnvelopeWriter.Write(json, _data.Ours);
        json.Flush();
    }

    /// <summary>Stage 1+2: plus UTF-8 encoding (<see cref="StreamWriter"/>) into <see cref="Stream.Null"/>.</summary>
    [Benchmark]
    public void Stage2_PlusUtf8_StreamNull() => EnvelopeSigner.WriteCanonical(_data.Ours, Stream.Null);

    /// <summary>Stage 1+2+3: plus writing the bytes into pooled blocks.</summary>
    [Benchmark]
    public long Stage3_PlusPooledBlocks()
    {
        using var stream = _streams.GetStream("breakdown");
        EnvelopeSigner.WriteCanonical(_data.Ours, stream);
        return stream.Length;
    }

    /// <summary>Stage 4 alone: HMAC-SHA256 over the pooled blocks (pooled incremental hash).</summary>
    [Benchmark]
    public string Stage4_HmacOverPooledBlocks() => BenchmarkData.Key.Sign(_filled.GetReadOnlySequence()).ToHex();

    /// <summary>All stages: <see cref="EnvelopeSigner.Sign"/>.</summary>
    [Benchmark]
    public string All_EnvelopeSigner_Sign()
    {
        using var signed = _signer.Sign(_data.Ours, BenchmarkData.Key);
        return signed.Signature.ToHex();
    }
}
