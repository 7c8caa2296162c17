using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// Issue 30's probe for a slow mode that lasts a whole process (<c>-- probe-slow-mode [--processes 8] [--rounds 30]</c>):
/// one BenchmarkDotNet run once measured <c>SignFunction_RunAsync</c> at 1.91× reading alone for every iteration, and
/// the next run of the same commit at 1.03×. A mode decided once per process is invisible to any number of iterations in
/// one process, so this starts <c>--processes</c> fresh processes one after the other; each runs the end-to-end rows
/// (<see cref="EndToEndBenchmarks"/>: reading alone, the function, the one-core function) in turn, round after round, and
/// reports medians. A process whose function costs more than <see cref="SlowRatio"/>× its reading alone is in the slow
/// mode; the probe lists every process and exits 1 if any was.
/// </summary>
public static class SlowModeProbe
{
    /// <summary>
    /// The function over reading alone above which a process is slow: the issue's goal is 1.05×, its slow run was 1.91×,
    /// and one-core reading-then-signing costs ~1.35×, so a process above this has lost what the spare core buys, and more.
    /// </summary>
    public const double SlowRatio = 1.25;

    private const string ChildFlag = "--child";

    /// <summary>Runs the probe (parent) or one measuring process (<c>--child</c>).</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var rounds = InterleavedRounds.Option(args, "--rounds", 30);
        return args.Contains(ChildFlag) ? Measure(rounds, output) : Probe(InterleavedRounds.Option(args, "--processes", 8), rounds, output);
    }

    private static int Probe(int processes, int rounds, TextWriter output)
    {
        var self = Environment.ProcessPath!;
        var entry = typeof(SlowModeProbe).Assembly.Location;
        output.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"Slow-mode probe: {processes} fresh processes x {rounds} rounds, .NET {Environment.Version}, {Environment.ProcessorCount} cores; slow = function > {SlowRatio:N2}x reading alone"));
        output.WriteLine("| Process | Reading alone ms | Function ms | One core ms | Function / reading | One core / reading | Helper wrote (share of runs) | Slow |");
        output.WriteLine("|---:|---:|---:|---:|---:|---:|---:|---|");
        var slow = 0;
        for (var p = 1; p <= processes; p++)
        {
            var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
            if (!self.EndsWith(Path.GetFileNameWithoutExtension(entry), StringComparison.Ordinal) && !self.EndsWith(Path.GetFileNameWithoutExtension(entry) + ".exe", StringComparison.Ordinal))
            {
                // Run with `dotnet FunctionApp.Benchmarks.dll`: the host is dotnet, the entry point the dll.
                start.ArgumentList.Add(entry);
            }

            foreach (var arg in new[] { "probe-slow-mode", ChildFlag, "--rounds", rounds.ToString(CultureInfo.InvariantCulture) })
            {
                start.ArgumentList.Add(arg);
            }

            using var child = Process.Start(start)!;
            var text = child.StandardOutput.ReadToEnd();
            child.WaitForExit();
            var line = text.Split('\n').LastOrDefault(l => l.StartsWith('{'));
            if (child.ExitCode != 0 || line is null)
            {
                output.WriteLine($"Process {p} failed (exit {child.ExitCode}):\n{text}");
                return 2;
            }

            var result = JsonSerializer.Deserialize<ProcessResult>(line)!;
            var ratio = result.FunctionMs / result.ReadMs;
            var isSlow = ratio > SlowRatio;
            slow += isSlow ? 1 : 0;
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {p} | {result.ReadMs:N2} | {result.FunctionMs:N2} | {result.OneCoreMs:N2} | {ratio:N2} | {result.OneCoreMs / result.ReadMs:N2} | {result.HelperShare:P0} | {(isSlow ? "**slow**" : "no")} |"));
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
                ("one core", rows.SignFunction_RunAsync_ReadThenSignOneCore),
            ];
            var samples = variants.Select(_ => new List<double>()).ToArray();
            var helperRunsBefore = WidgetSigning.Signing.PipelineCounters.Snapshot();
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

            var helper = WidgetSigning.Signing.PipelineCounters.Snapshot() - helperRunsBefore;
            var result = new ProcessResult(Median(samples[0]), Median(samples[1]), Median(samples[2]), helper.HelperShare);
            output.WriteLine(JsonSerializer.Serialize(result));
            return 0;
        }
        finally
        {
            rows.Cleanup();
        }
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }

    /// <summary>One process's medians (ms) and the share of runs its pipeline's helper wrote.</summary>
    private sealed record ProcessResult(double ReadMs, double FunctionMs, double OneCoreMs, double HelperShare);
}
