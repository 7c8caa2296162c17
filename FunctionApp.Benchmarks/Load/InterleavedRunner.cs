using System.Diagnostics;
using System.Globalization;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using FunctionApp.Benchmarks.Variants;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// A quick A/B tool for a noisy, shared machine (<c>-- interleaved [--rounds 40] [--widgets 3000]</c>): the signing
/// variants run in turn, round after round, so background load hits them all alike; per variant it prints the
/// fastest and the median round (mean of several calls each) and both as ratios to HMAC alone. For choosing
/// between variants while iterating; published figures come from BenchmarkDotNet.
/// </summary>
public static class InterleavedRunner
{
    /// <summary>Runs the rounds and writes the table to <paramref name="output"/>.</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var rounds = Option(args, "--rounds", 40);
        var widgets = Option(args, "--widgets", BenchmarkData.SeedWidgetCount);
        var data = BenchmarkData.Create(widgets);
        var signer = SignerFactory.Create(out var streams);
        SignatureGuard.EnsureSameSignature(data, signer);
        using var canonical = new MemoryStream();
        FunctionApp.Signing.EnvelopeSigner.WriteCanonical(data.Ours, canonical);
        var bytes = canonical.ToArray();
        var nullWriter = new NullBufferWriter();
        var key = BenchmarkData.Key;

        (string Name, Action Run)[] variants =
        [
            ("HMAC alone (array)", () => System.Security.Cryptography.HMACSHA256.HashData(BenchmarkData.KeyBytes, bytes)),
            ("HMAC over pooled blocks", () => key.Sign(new System.Buffers.ReadOnlySequence<byte>(bytes))),
            ("writer alone (null buffer writer)", () => FunctionApp.Signing.CanonicalUtf8Writer.Write(data.Ours, nullWriter)),
            ("seed RMS", () => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(data.Seed)),
            ("v0 staged, then hash", () => SigningVariants.StagedThenHash(streams, data.Ours, key)),
            ("v1 direct, then hash", () => SigningVariants.DirectThenHash(streams, data.Ours, key)),
            ("v2 direct, hash per 64 KB block", () => SigningVariants.DirectHashPerBlock(streams, data.Ours, key)),
            ("v2b direct, hash per 16 KB", () => SigningVariants.DirectHashPerChunk(streams, data.Ours, key, 16 * 1024)),
            ("v2c direct, hash per 4 KB", () => SigningVariants.DirectHashPerChunk(streams, data.Ours, key, 4 * 1024)),
            ("v3 overlapped, 64 KB", () => SigningVariants.Overlapped(streams, data.Ours, key, 64 * 1024)),
            ("v3b overlapped, 16 KB", () => SigningVariants.Overlapped(streams, data.Ours, key, 16 * 1024)),
            ("EnvelopeSigner.Sign", () =>
            {
                using var signed = signer.Sign(data.Ours, key);
                _ = signed.Signature.ToHex();
            }),
        ];

        var calls = Math.Max(1, 3000 * 5 / widgets);
        var allocated = new double[variants.Length];
        var samples = variants.Select(_ => new List<double>()).ToArray();
        for (var round = -3; round < rounds; round++)
        {
            for (var v = 0; v < variants.Length; v++)
            {
                var before = GC.GetTotalAllocatedBytes(precise: true);
                var clock = Stopwatch.StartNew();
                for (var i = 0; i < calls; i++)
                {
                    variants[v].Run();
                }

                if (round >= 0)
                {
                    samples[v].Add(clock.Elapsed.TotalMicroseconds / calls);
                    allocated[v] += (GC.GetTotalAllocatedBytes(precise: true) - before) / (double)calls / rounds;
                }
            }
        }

        var hmacMin = samples[0].Min();
        var hmacMedian = Median(samples[0]);
        output.WriteLine($"Interleaved: {rounds} rounds x {calls} calls, {widgets:N0} widgets, .NET {Environment.Version}, {Environment.ProcessorCount} cores");
        output.WriteLine("| Variant | Fastest round µs | Median round µs | Fastest / HMAC fastest | Median / HMAC median | Allocated/call (process) |");
        output.WriteLine("|---|---:|---:|---:|---:|---:|");
        for (var v = 0; v < variants.Length; v++)
        {
            var min = samples[v].Min();
            var median = Median(samples[v]);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {variants[v].Name} | {min:N1} | {median:N1} | {min / hmacMin:N2} | {median / hmacMedian:N2} | {allocated[v]:N0} B |"));
        }

        return 0;
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }

    private static int Option(string[] args, string name, int fallback)
    {
        var at = Array.IndexOf(args, name);
        return at >= 0 && at + 1 < args.Length ? int.Parse(args[at + 1], CultureInfo.InvariantCulture) : fallback;
    }
}
