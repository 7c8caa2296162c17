using System.Diagnostics;
using System.Globalization;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// The in-process stand-in for concurrency 8 (<c>-- saturated [--workers 8] [--seconds 3] [--rounds 6]</c>): the
/// end-to-end rows' functions (<see cref="EndToEndBenchmarks.Concurrent"/>) called by <c>--workers</c> loops at once
/// for <c>--seconds</c>, every core busy, variant after variant, round after round (one uncounted warm-up round first),
/// so a shared machine's background load hits them alike. Per variant: calls per second, CPU per call (the whole
/// process's user + system time over the calls: what a saturated host pays per request), allocation per call, GC count
/// and GC pause per call, medians over the rounds. No socket, host or client: those are <c>npm run load</c>'s.
/// </summary>
public static class SaturatedRunner
{
    /// <summary>Runs the rows named after <c>--rows</c> (comma-separated; default the function, the function on one core, and reading alone).</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var workers = InterleavedRounds.Option(args, "--workers", 8);
        var seconds = InterleavedRounds.Option(args, "--seconds", 3);
        var rounds = InterleavedRounds.Option(args, "--rounds", 6);
        var at = Array.IndexOf(args, "--rows");
        var rows = at >= 0 && at + 1 < args.Length ? args[at + 1].Split(',') : ["function-one-core", "function", "read"];

        var benchmarks = new EndToEndBenchmarks();
        benchmarks.Setup();
        try
        {
            var variants = rows.Select(r => (Name: r, Run: benchmarks.Concurrent(r))).ToArray();
            var samples = variants.Select(_ => new List<Sample>()).ToArray();
            for (var round = -1; round < rounds; round++)
            {
                for (var v = 0; v < variants.Length; v++)
                {
                    var sample = Measure(variants[v].Run, workers, TimeSpan.FromSeconds(seconds));
                    if (round >= 0)
                    {
                        samples[v].Add(sample);
                    }
                }
            }

            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"Saturated: {workers} callers x {seconds} s x {rounds} rounds per row, .NET {Environment.Version}, {Environment.ProcessorCount} cores, {(System.Runtime.GCSettings.IsServerGC ? "server" : "workstation")} GC; medians"));
            output.WriteLine($"| Row | Calls/s | CPU ms/call | CPU / {rows[0]} | Allocated/call | Gen0/1/2 per 100 calls | GC pause ms/call |");
            output.WriteLine("|---|---:|---:|---:|---:|---:|---:|");
            var baseCpu = InterleavedRounds.Median(samples[0].Select(s => s.CpuMs).ToList());
            for (var v = 0; v < variants.Length; v++)
            {
                double M(Func<Sample, double> f) => InterleavedRounds.Median(samples[v].Select(f).ToList());
                output.WriteLine(string.Create(
                    CultureInfo.InvariantCulture,
                    $"| {variants[v].Name} | {M(s => s.PerSecond):N1} | {M(s => s.CpuMs):N2} | {M(s => s.CpuMs) / baseCpu:N3} | {M(s => s.AllocatedBytes) / 1e6:N2} MB | {M(s => s.Gen0):N1}/{M(s => s.Gen1):N1}/{M(s => s.Gen2):N1} | {M(s => s.PauseMs):N3} |"));
            }

            return 0;
        }
        finally
        {
            benchmarks.Cleanup();
        }
    }

    private static Sample Measure(Func<Task> call, int workers, TimeSpan duration)
    {
        var process = Process.GetCurrentProcess();
        var gc = (Gen0: GC.CollectionCount(0), Gen1: GC.CollectionCount(1), Gen2: GC.CollectionCount(2));
        var pause = GC.GetTotalPauseDuration();
        var allocated = GC.GetTotalAllocatedBytes(precise: false);
        process.Refresh();
        var cpu = process.TotalProcessorTime;
        var clock = Stopwatch.StartNew();
        long calls = 0;

        async Task Loop()
        {
            // Off the caller's thread at once, as a request arrives on a thread-pool thread.
            await Task.Yield();
            while (clock.Elapsed < duration)
            {
                await call().ConfigureAwait(false);
                Interlocked.Increment(ref calls);
            }
        }

        Task.WaitAll(Enumerable.Range(0, workers).Select(_ => Task.Run(Loop)).ToArray());
        var elapsed = clock.Elapsed;
        process.Refresh();
        var n = (double)calls;
        return new Sample(
            n / elapsed.TotalSeconds,
            (process.TotalProcessorTime - cpu).TotalMilliseconds / n,
            (GC.GetTotalAllocatedBytes(precise: false) - allocated) / n,
            100 * (GC.CollectionCount(0) - gc.Gen0) / n,
            100 * (GC.CollectionCount(1) - gc.Gen1) / n,
            100 * (GC.CollectionCount(2) - gc.Gen2) / n,
            (GC.GetTotalPauseDuration() - pause).TotalMilliseconds / n);
    }

    private readonly record struct Sample(double PerSecond, double CpuMs, double AllocatedBytes, double Gen0, double Gen1, double Gen2, double PauseMs);
}
