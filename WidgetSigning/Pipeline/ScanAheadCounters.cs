using System.Diagnostics.Metrics;

namespace WidgetSigning.Pipeline;

/// <summary>
/// Who scanned a body's chunks when the scan ran ahead (<see cref="ScanAheadStream"/>): the helper on the spare core, or
/// the reader's thread because the helper had not got there (late, or never started). A small helper share means the
/// spare core bought nothing. Published on the <c>WidgetSigning</c> meter beside the pipeline's counters.
/// </summary>
internal static class ScanAheadCounters
{
    private static readonly Meter Meter = new("WidgetSigning");
    private static long _helperChunks;
    private static long _readerChunks;

    static ScanAheadCounters()
    {
        Meter.CreateObservableCounter("widgetsigning.scan.helper_chunks", () => Volatile.Read(ref _helperChunks), "{chunk}", "Chunks of a body scanned ahead by the helper on the spare core.");
        Meter.CreateObservableCounter("widgetsigning.scan.reader_chunks", () => Volatile.Read(ref _readerChunks), "{chunk}", "Chunks of a body scanned ahead but by the reader's thread (the helper had not got there).");
    }

    /// <summary>The helper's and the reader's chunks so far.</summary>
    public static (long Helper, long Reader) Snapshot() => (Volatile.Read(ref _helperChunks), Volatile.Read(ref _readerChunks));

    /// <summary>One chunk scanned, by the helper or by the reader's thread.</summary>
    public static void Scanned(bool byHelper)
    {
        if (byHelper)
        {
            Interlocked.Increment(ref _helperChunks);
        }
        else
        {
            Interlocked.Increment(ref _readerChunks);
        }
    }
}
