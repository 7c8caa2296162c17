using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Variants;
using WidgetSigning.Envelopes;

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
        var rounds = InterleavedRounds.Option(args, "--rounds", 30);
        var data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        var body = data.SeedBody();
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

        (string Name, Action Run)[] runs = variants.Select(v => (v.Name, (Action)(() =>
        {
            stream.Position = 0;
            if (v.Read(stream).Widgets.Count != BenchmarkData.SeedWidgetCount)
            {
                throw new InvalidOperationException($"{v.Name} did not read the seed envelope.");
            }
        }))).ToArray();
        InterleavedRounds.Run(runs, rounds, calls: 3, $"Reader interleaved, {BenchmarkData.SeedWidgetCount:N0} widgets ({body.Length:N0} B)", "before", "N3", output);
        return 0;
    }
}
