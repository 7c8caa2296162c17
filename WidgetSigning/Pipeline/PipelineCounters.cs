using System.Diagnostics.Metrics;

namespace WidgetSigning.Pipeline;

/// <summary>
/// Who wrote the canonical form behind the reader (<see cref="SigningPipeline"/>), counted per run of widgets: the
/// helper on the spare core, or the reader's own thread once reading ended. A process whose helper writes a small share
/// gains nothing from the spare core; one whose requests cost more than reading although its helper writes most runs
/// has its helper competing with the reader for one core. Published on the <c>WidgetSigning</c> meter (<c>dotnet-counters monitor --counters
/// WidgetSigning</c>) and read by the benchmarks' slow-mode probe; the helper's sleeps between runs too.
/// </summary>
internal static class PipelineCounters
{
    /// <summary>The meter's name.</summary>
    public const string MeterName = "WidgetSigning";

    private static readonly Meter Meter = new(MeterName);
    private static long _helperRuns;
    private static long _readerRuns;
    private static long _sleeps;

    static PipelineCounters()
    {
        Meter.CreateObservableCounter("widgetsigning.pipeline.helper_runs", () => Volatile.Read(ref _helperRuns), "{run}", "Runs of widgets written behind the reader by the helper on the spare core.");
        Meter.CreateObservableCounter("widgetsigning.pipeline.reader_runs", () => Volatile.Read(ref _readerRuns), "{run}", "Runs of widgets written by the reader's thread once reading ended.");
        Meter.CreateObservableCounter("widgetsigning.pipeline.helper_sleeps", () => Volatile.Read(ref _sleeps), "{sleep}", "Times the helper slept between two runs instead of spinning.");
    }

    /// <summary>One run written by the helper.</summary>
    public static void HelperWrote() => Interlocked.Increment(ref _helperRuns);

    /// <summary>One run written by the reader's thread.</summary>
    public static void ReaderWrote() => Interlocked.Increment(ref _readerRuns);

    /// <summary>The helper went to sleep until the next run.</summary>
    public static void HelperSlept() => Interlocked.Increment(ref _sleeps);

    /// <summary>The counts so far.</summary>
    public static Totals Snapshot() => new(Volatile.Read(ref _helperRuns), Volatile.Read(ref _readerRuns), Volatile.Read(ref _sleeps));

    /// <summary>Runs written by each side.</summary>
    public readonly record struct Totals(long HelperRuns, long ReaderRuns, long HelperSleeps)
    {
        /// <summary>The helper's share of the runs (0 when there were none).</summary>
        public double HelperShare => HelperRuns + ReaderRuns == 0 ? 0 : (double)HelperRuns / (HelperRuns + ReaderRuns);

        /// <summary>The runs between two snapshots.</summary>
        public static Totals operator -(Totals after, Totals before) => new(after.HelperRuns - before.HelperRuns, after.ReaderRuns - before.ReaderRuns, after.HelperSleeps - before.HelperSleeps);

        /// <summary>The runs between two snapshots.</summary>
        public static Totals Subtract(Totals after, Totals before) => after - before;
    }
}
