using System.Diagnostics;
using System.Globalization;
using System.Text;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Variants;
using FunctionApp.Envelopes;
using Newtonsoft.Json;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// The reader's A/B for a noisy, shared machine (<c>-- interleaved-reader [--rounds 30]</c>): the reader as it was,
/// with each of issue 13's request-side changes alone, with all of them, and the shipped reader, in turn round after
/// round on the seed's ~1.1 MB body, so background load hits them alike. Prints fastest and median round and both as
/// ratios to the reader as it was. For choosing; published figures come from BenchmarkDotNet.
/// </summary>
public static class ReaderInterleavedRunner
{
    /// <summary>Runs the rounds and writes the table to <paramref name="output"/>.</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var at = Array.IndexOf(args, "--rounds");
        var rounds = at >= 0 && at + 1 < args.Length ? int.Parse(args[at + 1], CultureInfo.InvariantCulture) : 30;
        var data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        var body = Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(data.Seed, new JsonSerializerSettings
        {
            ContractResolver = new Newtonsoft.Json.Serialization.CamelCasePropertyNamesContractResolver(),
        }));
        var stream = new MemoryStream(body, writable: false);
        var shipped = new WidgetEnvelopeReader();

        (string Name, Func<Stream, WidgetEnvelope> Read)[] variants =
        [
            ("before (as it was)", new WidgetEnvelopeReaderBefore().Read),
            ("+ predicted member by reference", new WidgetEnvelopeReaderBefore(ReaderChanges.PredictMember).Read),
            ("+ one string[10] per envelope", new WidgetEnvelopeReaderBefore(ReaderChanges.ReuseArray).Read),
            ("+ list presized from body length", new WidgetEnvelopeReaderBefore(ReaderChanges.PresizeList).Read),
            ("+ Guid \"D\" first", new WidgetEnvelopeReaderBefore(ReaderChanges.GuidExactFirst).Read),
            ("all four (variant)", new WidgetEnvelopeReaderBefore(ReaderChanges.All).Read),
            ("WidgetEnvelopeReader (shipped)", shipped.Read),
        ];

        const int Calls = 3;
        var allocated = new double[variants.Length];
        var samples = variants.Select(_ => new List<double>()).ToArray();
        for (var round = -3; round < rounds; round++)
        {
            for (var v = 0; v < variants.Length; v++)
            {
                var before = GC.GetTotalAllocatedBytes(precise: true);
                var clock = Stopwatch.StartNew();
                for (var i = 0; i < Calls; i++)
                {
                    stream.Position = 0;
                    if (variants[v].Read(stream).Widgets.Count != BenchmarkData.SeedWidgetCount)
                    {
                        throw new InvalidOperationException($"{variants[v].Name} did not read the seed envelope.");
                    }
                }

                if (round >= 0)
                {
                    samples[v].Add(clock.Elapsed.TotalMicroseconds / Calls);
                    allocated[v] += (GC.GetTotalAllocatedBytes(precise: true) - before) / (double)Calls / rounds;
                }
            }
        }

        var baseMin = samples[0].Min();
        var baseMedian = Median(samples[0]);
        output.WriteLine($"Reader interleaved: {rounds} rounds x {Calls} calls, {BenchmarkData.SeedWidgetCount:N0} widgets ({body.Length:N0} B), .NET {Environment.Version}, {Environment.ProcessorCount} cores");
        output.WriteLine("| Variant | Fastest round µs | Median round µs | Fastest / before | Median / before | Allocated/call (process) |");
        output.WriteLine("|---|---:|---:|---:|---:|---:|");
        for (var v = 0; v < variants.Length; v++)
        {
            var min = samples[v].Min();
            var median = Median(samples[v]);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {variants[v].Name} | {min:N1} | {median:N1} | {min / baseMin:N3} | {median / baseMedian:N3} | {allocated[v]:N0} B |"));
        }

        return 0;
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }
}
