using WidgetSigning.Telemetry;

namespace WidgetSigning.SpareCores;

/// <summary>
/// Who did the spare core's work, published on the <c>WidgetSigning</c> meter (docs/operations.md). Runs of widgets
/// written behind the reader (<see cref="SigningPipeline"/>) by the helper or by the reader's thread once reading ended,
/// the helper's sleeps between runs, envelopes signed in memory whose hashing was shared and the
/// chunks of them the helper hashed (<see cref="OverlappedHashingBufferWriter"/>), and chunks of a body scanned ahead (<see cref="ScanAheadStream"/>) by the helper or
/// by the reader's thread. A process whose helper does a small share gains nothing from the spare core; one whose
/// requests cost more than reading although its helper writes most runs has its helper competing with the reader.
/// </summary>
internal sealed class SpareCoreCounters
{
    private long _helperRuns;
    private long _readerRuns;
    private long _sleeps;
    private long _helperChunks;
    private long _readerChunks;
    private long _sharedHashings;
    private long _helperHashChunks;

    /// <summary>Creates the counters and publishes them on <paramref name="metrics"/>' meter.</summary>
    public SpareCoreCounters(SigningMetrics metrics)
    {
        ArgumentNullException.ThrowIfNull(metrics);
        metrics.ObserveCounter("widgetsigning.pipeline.helper_runs", () => Volatile.Read(ref _helperRuns), "{run}", "Runs of widgets written behind the reader by the helper on the spare core.");
        metrics.ObserveCounter("widgetsigning.pipeline.reader_runs", () => Volatile.Read(ref _readerRuns), "{run}", "Runs of widgets written by the reader's thread once reading ended.");
        metrics.ObserveCounter("widgetsigning.pipeline.helper_sleeps", () => Volatile.Read(ref _sleeps), "{sleep}", "Times the helper slept between two runs instead of spinning.");
        metrics.ObserveCounter("widgetsigning.scan.helper_chunks", () => Volatile.Read(ref _helperChunks), "{chunk}", "Chunks of a body scanned ahead by the helper on the spare core.");
        metrics.ObserveCounter("widgetsigning.hashing.shared", () => Volatile.Read(ref _sharedHashings), "{envelope}", "Envelopes signed in memory whose hashing was shared with the spare core.");
        metrics.ObserveCounter("widgetsigning.hashing.helper_chunks", () => Volatile.Read(ref _helperHashChunks), "{chunk}", "Chunks of an envelope signed in memory hashed by the helper on the spare core.");
        metrics.ObserveCounter("widgetsigning.scan.reader_chunks", () => Volatile.Read(ref _readerChunks), "{chunk}", "Chunks of a body scanned ahead but by the reader's thread (the helper had not got there).");
    }

    /// <summary>One run written, by the helper or by the reader's thread.</summary>
    public void Wrote(bool byHelper) => Interlocked.Increment(ref byHelper ? ref _helperRuns : ref _readerRuns);

    /// <summary>The helper went to sleep until the next run.</summary>
    public void HelperSlept() => Interlocked.Increment(ref _sleeps);

    /// <summary>One chunk scanned ahead, by the helper or by the reader's thread.</summary>
    public void Scanned(bool byHelper) => Interlocked.Increment(ref byHelper ? ref _helperChunks : ref _readerChunks);

    /// <summary>An envelope signed in memory with its hashing shared, of which the helper hashed <paramref name="chunks"/> (none when it never started).</summary>
    public void HashingShared(int chunks)
    {
        Interlocked.Increment(ref _sharedHashings);
        Interlocked.Add(ref _helperHashChunks, chunks);
    }

    /// <summary>The counts so far.</summary>
    public SpareCoreTotals Snapshot() => new(
        Volatile.Read(ref _helperRuns), Volatile.Read(ref _readerRuns), Volatile.Read(ref _sleeps), Volatile.Read(ref _helperChunks), Volatile.Read(ref _readerChunks), Volatile.Read(ref _sharedHashings), Volatile.Read(ref _helperHashChunks));
}
