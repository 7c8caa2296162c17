using System.Globalization;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using FunctionApp.Benchmarks.Variants;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// The "under load" run (<c>-- load [--workers 16] [--operations 3200] [--rounds 4]</c>): the seed envelope signed by 16
/// concurrent signers: our signer, the sequential and always-overlapped variants, and the seed's
/// RecyclableMemoryStream method, printed as a Markdown table. <c>--workers 1</c> gives single-request latency.
/// </summary>
public static class LoadRunner
{
    /// <summary>Default concurrent signers.</summary>
    public const int DefaultWorkers = 16;

    /// <summary>Default operations per method (all workers together).</summary>
    public const int DefaultOperations = 3200;

    /// <summary>Default rounds the methods take turns in.</summary>
    public const int DefaultRounds = 4;

    /// <summary>Parses the arguments, runs both methods and writes the table to <paramref name="output"/>.</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var workers = Option(args, "--workers", DefaultWorkers);
        var operations = Option(args, "--operations", DefaultOperations);
        var rounds = Option(args, "--rounds", DefaultRounds);

        var results = Measure(workers, operations, BenchmarkData.SeedWidgetCount, rounds);
        output.WriteLine($"Under load: {workers} concurrent signers, {operations:N0} operations each method in {rounds} interleaved rounds, {BenchmarkData.SeedWidgetCount:N0} widgets, " +
            $".NET {Environment.Version}, {Environment.ProcessorCount} cores, GC server={System.Runtime.GCSettings.IsServerGC}");
        output.WriteLine();
        output.WriteLine("| Method | Ops/s | Mean wall time/op | Allocated/op | Gen0 | Gen1 | Gen2 | LOH allocated | Pool peak in use | Pool peak free | Pool blocks created |");
        output.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var r in results)
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {r.Method} | {r.Throughput:N1} | {r.Elapsed.TotalMilliseconds / r.Operations:N2} ms | {r.AllocatedBytesPerOperation / 1024:N1} KB | {r.Gen0} | {r.Gen1} | {r.Gen2} | {r.LohBytes / 1024.0 / 1024:N1} MB | {r.PeakPoolInUseBytes / 1024.0 / 1024:N1} MB | {r.PeakPoolFreeBytes / 1024.0 / 1024:N1} MB | {r.PoolBlocksCreated} |"));
        }

        return 0;
    }

    /// <summary>
    /// Runs our signer, the two variants and the seed's RMS method under the same load, checking first that they
    /// agree. The methods take turns, in rotating order, over <paramref name="rounds"/> rounds (each a share of the operations), so a
    /// change in the machine's background load falls on all of them alike; the rounds are summed.
    /// </summary>
    public static IReadOnlyList<LoadResult> Measure(int workers, int operations, int widgetCount, int rounds = 1)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(rounds, 1);
        var data = BenchmarkData.Create(widgetCount);
        var signer = SignerFactory.Create(out var pool);
        var oneCore = SignerFactory.Create(pool, SignerFactory.OneCore);
        SignatureGuard.EnsureSameSignature(data, signer);
        var body = data.SeedBody();
        var reader = new WidgetSigning.Envelopes.WidgetEnvelopeReader();
        using var listener = new LargeObjectHeapListener();

        (string Name, Action Operation, Microsoft.IO.RecyclableMemoryStreamManager Pool)[] methods =
        [
            ("EnvelopeSigner.Sign (ours)", () =>
            {
                using var signed = signer.Sign(data.Ours);
                _ = signed.Signature.ToHex();
            }, pool),

            // Signing on one core only, and the request path (the seed body read and signed) adaptive and one-core.
            ("EnvelopeSigner.Sign, one core (never overlapped)", () =>
            {
                using var signed = oneCore.Sign(data.Ours);
                _ = signed.Signature.ToHex();
            }, pool),
            ("ReadAndSignAsync (ours, behind the reader when a core is spare)", () => SignerFactory.ReadAndSign(signer, body), pool),
            ("ReadAndSignAsync, one core (read, then sign)", () => SignerFactory.ReadAndSign(oneCore, body), pool),
            // The same two again, as an A/A control: on a shared 2-core VM two identical rows differ by 3-6 %, and a gap
            // between the two above means something only when it is larger than the gap between the pairs.
            ("ReadAndSignAsync, one core again (A/A control)", () => SignerFactory.ReadAndSign(oneCore, body), pool),
            ("ReadAndSignAsync, adaptive again (A/A control)", () => SignerFactory.ReadAndSign(signer, body), pool),

            // The variants under the same load: overlap must not cost throughput when every core is busy.
            ("Variant 2: direct, hash per block (never overlapped)", () => SigningVariants.DirectHashPerBlock(pool, data.Ours, BenchmarkData.Key), pool),
            ("Variant 3b: overlapped in 16 KB chunks (always)", () => SigningVariants.Overlapped(pool, data.Ours, BenchmarkData.Key, 16 * 1024), pool),
            ("SerializeToRecyclableMemoryStreamAndSign (seed)", () => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(data.Seed), SeedSerializeAndSign.MemoryStreamManager),
        ];

        var totals = new LoadResult?[methods.Length];
        var share = Math.Max(workers, operations / rounds);

        // One uncounted round first: otherwise the first method measured would pay for the JIT's tiering of the
        // code they share (the writer, the hash) and the pool's growth to its working size.
        foreach (var method in methods)
        {
            LoadScenario.Run(method.Name, method.Operation, method.Pool, workers, share, listener);
        }

        for (var round = 0; round < rounds; round++)
        {
            // Each round starts with the next method, so no method always follows the same one.
            for (var k = 0; k < methods.Length; k++)
            {
                var m = (round + k) % methods.Length;
                var r = LoadScenario.Run(methods[m].Name, methods[m].Operation, methods[m].Pool, workers, share, listener);
                var t = totals[m];
                totals[m] = t is null ? r : new LoadResult(
                    r.Method, r.Workers, t.Operations + r.Operations, t.Elapsed + r.Elapsed, t.AllocatedBytes + r.AllocatedBytes,
                    t.Gen0 + r.Gen0, t.Gen1 + r.Gen1, t.Gen2 + r.Gen2, t.LohBytes + r.LohBytes,
                    Math.Max(t.PeakPoolInUseBytes, r.PeakPoolInUseBytes), Math.Max(t.PeakPoolFreeBytes, r.PeakPoolFreeBytes),
                    t.PoolBlocksCreated + r.PoolBlocksCreated);
            }
        }

        return [.. totals.Select(t => t!)];
    }

    private static int Option(string[] args, string name, int fallback)
    {
        var at = Array.IndexOf(args, name);
        return at >= 0 && at + 1 < args.Length ? int.Parse(args[at + 1], CultureInfo.InvariantCulture) : fallback;
    }
}
