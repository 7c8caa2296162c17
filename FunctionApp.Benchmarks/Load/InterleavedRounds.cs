using System.Diagnostics;
using System.Globalization;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// The loop behind the quick A/B modes (<see cref="InterleavedRunner"/>, <see cref="PipelineInterleavedRunner"/>): the
/// variants run in turn, round after round (three uncounted warm-up rounds first), so background load on a shared
/// machine hits them all alike; then one table of fastest and median round per variant, as ratios to the first.
/// </summary>
internal static class InterleavedRounds
{
    /// <summary>Runs <paramref name="rounds"/> rounds of <paramref name="calls"/> calls per variant and writes the table.</summary>
    public static void Run(
        IReadOnlyList<(string Name, Action Run)> variants, int rounds, int calls, string title, string baseline, string ratioFormat, TextWriter output)
    {
        var allocated = new double[variants.Count];
        var samples = variants.Select(_ => new List<double>()).ToArray();
        for (var round = -3; round < rounds; round++)
        {
            for (var v = 0; v < variants.Count; v++)
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

        var baseMin = samples[0].Min();
        var baseMedian = Median(samples[0]);
        output.WriteLine($"{title}: {rounds} rounds x {calls} calls, .NET {Environment.Version}, {Environment.ProcessorCount} cores");
        output.WriteLine($"| Variant | Fastest round µs | Median round µs | Fastest / {baseline} | Median / {baseline} | Allocated/call (process) |");
        output.WriteLine("|---|---:|---:|---:|---:|---:|");
        for (var v = 0; v < variants.Count; v++)
        {
            var min = samples[v].Min();
            var median = Median(samples[v]);
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {variants[v].Name} | {min:N1} | {median:N1} | {(min / baseMin).ToString(ratioFormat, CultureInfo.InvariantCulture)} | {(median / baseMedian).ToString(ratioFormat, CultureInfo.InvariantCulture)} | {allocated[v]:N0} B |"));
        }
    }

    /// <summary>The integer after <paramref name="name"/> in <paramref name="args"/>, or <paramref name="fallback"/>.</summary>
    public static int Option(string[] args, string name, int fallback)
    {
        var at = Array.IndexOf(args, name);
        return at >= 0 && at + 1 < args.Length ? int.Parse(args[at + 1], CultureInfo.InvariantCulture) : fallback;
    }

    /// <summary>The median of <paramref name="values"/> (the upper one of an even count).</summary>
    public static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }
}
