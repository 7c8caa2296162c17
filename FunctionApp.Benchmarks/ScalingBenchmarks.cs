using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks;

/// <summary>
/// How cost grows with the envelope: our signer against the seed's best method from 30 to 30,000 widgets
/// (~11 KB to ~11 MB of canonical JSON). Divide by <see cref="WidgetCount"/> for cost per widget.
/// </summary>
[MemoryDiagnoser]
public class ScalingBenchmarks
{
    private BenchmarkData _data = null!;
    private EnvelopeSigner _signer = null!;

    /// <summary>Widgets per envelope.</summary>
    [Params(30, 300, 3_000, 30_000)]
    public int WidgetCount { get; set; }

    /// <summary>Builds the envelope and checks that both methods sign the same bytes.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = BenchmarkData.Create(WidgetCount);
        _signer = SignerFactory.Create(out _);
        SignatureGuard.EnsureSameSignature(_data, _signer);
    }

    /// <summary>The seed's best: serialize into a <c>RecyclableMemoryStream</c> from a default manager.</summary>
    [Benchmark(Baseline = true)]
    public string SeedRecyclableMemoryStream() => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(_data.Seed);

    /// <summary>Ours: <see cref="EnvelopeSigner.SignAsync(WidgetSigning.Envelopes.WidgetEnvelope, SignRequest, CancellationToken)"/>, then hex.</summary>
    [Benchmark]
    public string EnvelopeSigner_Sign()
    {
        using var signed = _signer.Sign(_data.Ours);
        return signed.Signature.ToHex();
    }
}
