using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// A probe for a slow mode that lasts a whole process (<c>-- probe-slow-mode [--processes 8] [--rounds 30] [--busy]</c>):
/// one BenchmarkDotNet run once measured <c>SignFunction_RunAsync</c> at 1.91× reading alone for every iteration, and
/// the next run of the same commit at 1.03×. A mode decided once per process is invisible to any number of iterations in
/// one process, so this starts <c>--processes</c> fresh processes one after the other; each runs the end-to-end rows
/// (<see cref="EndToEndBenchmarks"/>: reading alone, the function, the one-core function) in turn, round after round, and
/// reports medians. A process whose function costs more than <see cref="SlowRatio"/>× its reading alone is in the slow
/// mode; the probe lists every process and exits 1 if any was.
/// <para>
/// What decides it: whether the other core was free. When another process holds it (the Functions host beside
/// the worker, a build, a neighbour), the scheduler runs the pipeline's helper on the reader's core, where its waiting
/// would take the reader's time slices if it spun and yielded between runs; it sleeps. <c>--busy</c> reproduces that on
/// purpose: a process spinning beside each measuring one. With it, a process is slow when the function costs more than
/// <see cref="BusyRatio"/>× reading then signing on one core, the most a request should cost when no core is spare.
/// </para>
/// </summary>
public static class SlowModeProbe
{
    /// <summary>
    /// The function over reading alone above which a process is slow: the goal is 1.05×, the slow run was 1.91×,
    /// and one-core reading-then-signing costs ~1.35×, so a process above this has lost what the spare core buys, and more.
    /// </summary>
    public const double SlowRatio = 1.25;

    /// <summary>With <c>--busy</c>: the function over the one-core function above which a process is slow.</summary>
    public const double BusyRatio = 1.05;

    private const string ChildFlag = "--child";
    private const string BurnFlag = "--burn";

    /// <summary>Runs the probe (parent) or one measuring process (<c>--child</c>).</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var rounds = InterleavedRounds.Option(args, "--rounds", 30);
        if (args.Contains(BurnFlag))
        {
            // The competing process: one thread spinning until it is killed.
            while (true)
            {
                Thread.SpinWait(1000);
            }
        }

        return args.Contains(ChildFlag) ? Measure(rounds, output) : Probe(InterleavedRounds.Option(args, "--processes", 8), rounds, args.Contains("--busy"), output);
    }

    private static ProcessStartInfo Self(params string[] args)
    {
        var self = Environment.ProcessPath!;
        var entry = typeof(SlowModeProbe).Assembly.Location;
        var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
        if (!self.EndsWith(Path.GetFileNameWithoutExtension(entry), StringComparison.Ordinal) && !self.EndsWith(Path.GetFileNameWithoutExtension(entry) + ".exe", StringComparison.Ordinal))
        {
            // Run with `dotnet FunctionApp.Benchmarks.dll`: the host is dotnet, the entry point the dll.
            start.ArgumentList.Add(entry);
        }

        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        return start;
    }

    private static int Probe(int processes, int rounds, bool busy, TextWriter output)
    {
        var beside = busy
            ? string.Create(CultureInfo.InvariantCulture, $"another process spinning beside each; slow = function > {BusyRatio:N2}x one core")
            : string.Create(CultureInfo.InvariantCulture, $"nothing beside; slow = function > {SlowRatio:N2}x reading alone");
        output.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"Slow-mode probe: {processes} fresh processes x {rounds} rounds, .NET {Environment.Version}, {Environment.ProcessorCount} cores, {beside}"));
        output.WriteLine("| Process | Reading alone ms | Function ms | One core ms | Function / reading | Function / one core | Helper wrote (share of runs) | Helper sleeps | Slow |");
        output.WriteLine("|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        var slow = 0;
        for (var p = 1; p <= processes; p++)
        {
            using var burner = busy ? Process.Start(Self("probe-slow-mode", BurnFlag)) : null;
            using var child = Process.Start(Self("probe-slow-mode", ChildFlag, "--rounds", rounds.ToString(CultureInfo.InvariantCulture)))!;
            var text = child.StandardOutput.ReadToEnd();
            child.WaitForExit();
            burner?.Kill();
            var line = text.Split('\n').LastOrDefault(l => l.StartsWith('{'));
            if (child.ExitCode != 0 || line is null)
            {
                output.WriteLine($"Process {p} failed (exit {child.ExitCode}):\n{text}");
                return 2;
            }

            var result = JsonSerializer.Deserialize<ProcessResult>(line)!;
            var ratio = result.FunctionMs / result.ReadMs;
            var isSlow = busy ? result.FunctionMs / result.OneCoreMs > BusyRatio : ratio > SlowRatio;
            slow += isSlow ? 1 : 0;
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {p} | {result.ReadMs:N2} | {result.FunctionMs:N2} | {result.OneCoreMs:N2} | {ratio:N2} | {result.FunctionMs / result.OneCoreMs:N2} | {result.HelperShare:P0} | {result.HelperSleeps} | {(isSlow ? "**slow**" : "no")} |"));
        }

        output.WriteLine(slow == 0 ? "No process was in the slow mode." : $"{slow} of {processes} processes were in the slow mode.");
        return slow == 0 ? 0 : 1;
    }

    private static int Measure(int rounds, TextWriter output)
    {
        var rows = new EndToEndBenchmarks();
        rows.Setup();
        try
        {
            (string Name, Func<Task> Run)[] variants =
            [
                ("read", rows.Limit_ReadOnly_HttpEnvelopeReader),
                ("function", rows.SignFunction_RunAsync),
                ("one core", rows.SignFunction_RunAsync_SignWhileReadingOneCore),
            ];
            var samples = variants.Select(_ => new List<double>()).ToArray();
            var helperRunsBefore = rows.SpareCoreCounters.Snapshot();
            for (var round = -5; round < rounds; round++)
            {
                for (var v = 0; v < variants.Length; v++)
                {
                    var clock = Stopwatch.StartNew();
                    variants[v].Run().GetAwaiter().GetResult();
                    if (round >= 0)
                    {
                        samples[v].Add(clock.Elapsed.TotalMilliseconds);
                    }
                }
            }

            var helper = rows.SpareCoreCounters.Snapshot() - helperRunsBefore;
            var result = new ProcessResult(InterleavedRounds.Median(samples[0]), InterleavedRounds.Median(samples[1]), InterleavedRounds.Median(samples[2]), helper.HelperShare, helper.HelperSleeps);
            output.WriteLine(JsonSerializer.Serialize(result));
            return 0;
        }
        finally
        {
            rows.Cleanup();
        }
    }

    /// <summary>One process's medians (ms) and the share of runs its pipeline's helper wrote.</summary>
    private sealed record ProcessResult(double ReadMs, double FunctionMs, double OneCoreMs, double HelperShare, long HelperSleeps);
}
