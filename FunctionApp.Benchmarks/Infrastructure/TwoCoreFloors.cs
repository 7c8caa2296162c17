using System.Globalization;
using System.Text;
using BenchmarkDotNet.Reports;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// <c>EnvelopeSigner_Sign</c> against its two-core floors, from one run of <see cref="SerializeAndSignBenchmarks"/>: the
/// ideal floor max(one chain, (writer + both chains) ÷ 2) assumes two cores hash twice as fast as one; the measured
/// floor divides by the scaling s = 2·t(one thread) / t(two threads at once) the same run measured, so a machine whose
/// cores share a core's worth of hashing (SMT siblings, a CPU quota) is held to what it can do.
/// </summary>
public static class TwoCoreFloors
{
    /// <summary>The file, in the results folder, that <see cref="Write"/> writes.</summary>
    public const string FileName = "two-core-floors.txt";

    /// <summary>One line per job whose summary holds every row the floors need; empty when the filter left one out.</summary>
    public static IReadOnlyList<string> Describe(Summary summary)
    {
        ArgumentNullException.ThrowIfNull(summary);
        var lines = new List<string>();
        foreach (var job in summary.Reports.Where(r => r.BenchmarkCase.Descriptor.Type == typeof(SerializeAndSignBenchmarks)).GroupBy(r => r.BenchmarkCase.Job.ResolvedId))
        {
            var mean = job.Where(r => r.ResultStatistics is not null).ToDictionary(r => r.BenchmarkCase.Descriptor.WorkloadMethod.Name, r => r.ResultStatistics!.Mean / 1000.0);
            if (Floors(mean) is { } line)
            {
                lines.Add($"{job.Key}: {line}");
            }
        }

        return lines;
    }

    /// <summary>Prints <see cref="Describe"/>'s lines to <paramref name="output"/> and writes them to <see cref="FileName"/> in the summary's results folder.</summary>
    public static void Write(Summary summary, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(summary);
        ArgumentNullException.ThrowIfNull(output);
        var lines = Describe(summary);
        if (lines.Count == 0)
        {
            return;
        }

        foreach (var line in lines)
        {
            output.WriteLine(line);
        }

        Directory.CreateDirectory(summary.ResultsDirectoryPath);
        File.WriteAllLines(Path.Combine(summary.ResultsDirectoryPath, FileName), lines, Encoding.UTF8);
    }

    /// <summary>The floors from the rows' means in µs, or null when one of them is missing.</summary>
    internal static string? Floors(IReadOnlyDictionary<string, double> meanMicroseconds)
    {
        ArgumentNullException.ThrowIfNull(meanMicroseconds);
        if (!meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.Scaling_HmacSha256_OneThread), out var oneThread)
            || !meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.Scaling_HmacSha256_TwoThreadsAtOnce), out var twoThreads)
            || !meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.Limit_HmacSha256_CanonicalBytes), out var chain)
            || !meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.Limit_BothMacs_CanonicalBytes), out var chains)
            || !meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.Limit_CanonicalWriter_StreamNull), out var writer)
            || !meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.EnvelopeSigner_Sign), out var sign))
        {
            return null;
        }

        // Every signature also hashes its canonical bytes for the audit record: with that row, the chains are three.
        var digest = meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.Limit_BothMacsAndDigest_CanonicalBytes), out var all);
        if (digest)
        {
            chains = all;
        }

        var scaling = 2 * oneThread / twoThreads;
        var ideal = Math.Max(chain, (writer + chains) / 2);
        // Below 1 (a loaded machine) the second thread only costs; the floor is then the one-core cost at most.
        var measured = Math.Max(chain, (writer + chains) / Math.Max(scaling, 1.0));
        var line = string.Create(
            CultureInfo.InvariantCulture,
            $"two-core scaling s = {scaling:F2}; chains: {(digest ? "both MACs and the digest" : "both MACs")}; EnvelopeSigner_Sign {sign:N0} µs; ideal floor {ideal:N0} µs ({sign / ideal:F2}×); measured floor {measured:N0} µs ({sign / measured:F2}×)");
        return meanMicroseconds.TryGetValue(nameof(SerializeAndSignBenchmarks.EnvelopeSigner_Sign_OneCore), out var oneCore)
            ? string.Create(CultureInfo.InvariantCulture, $"{line}; EnvelopeSigner_Sign_OneCore {oneCore:N0} µs against writer + chains {writer + chains:N0} µs ({oneCore / (writer + chains):F2}×)")
            : line;
    }
}
