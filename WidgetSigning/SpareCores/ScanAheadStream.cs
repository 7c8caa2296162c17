using System.Buffers;
using Microsoft.IO;
using WidgetSigning.Envelopes;
using WidgetSigning.Primitives;

namespace WidgetSigning.SpareCores;

/// <summary>
/// The reader's byte scan run ahead on a spare core: a thread-pool thread scans the body's bytes, already in
/// memory, in chunks of <see cref="ChunkBytes"/> while the reader's thread decodes and tokenizes them, so a request
/// costs tokenizing, not tokenizing plus scanning (~0.8 ms of a 1 MB body's ~4.5 ms). Whatever was scanned is answered
/// as of the bytes passed on, exactly as <see cref="StrictJsonGuard"/> answers when it scans them as they are
/// pulled: each finding is kept with the offset of the byte that caused it, and shows only once the reader has pulled
/// the chunk holding that byte; a cut ends the stream where the scanner would have. Every error answer is therefore the
/// same either way. Whichever thread needs a chunk first scans it, under one lock per chunk: if the helper is late or
/// never starts, the reader's thread scans, as without it.
/// </summary>
internal sealed class ScanAheadStream : ScannedStream, IThreadPoolWorkItem
{
    /// <summary>Bytes scanned per turn: ~12 µs of scanning, so the reader waits at most that long for the lock.</summary>
    internal const int ChunkBytes = 16 * 1024;

    private readonly object _gate = new();
    private readonly Stream _inner;
    private readonly ReadOnlySequence<byte> _bytes;
    private readonly StrictJsonGuard _scanner = new(Null);
    private readonly SpareCoreCounters _counters;

    // Under _gate: how far the scan has got, whether it is over (the end, or a cut), and whether the reader is done.
    private long _scanned;
    private bool _scanOver;
    private bool _closed;

    // Under _gate: what is left of the segment being scanned, and where the next one starts. Walking the segments once
    // keeps the scan linear in the body however many blocks it has (slicing at an offset walks them from the start).
    private ReadOnlyMemory<byte> _segmentLeft;
    private SequencePosition _nextSegment;

    // Each finding with the offset of the byte that caused it (long.MaxValue: none). Set under _gate, once.
    private long _violationAt = long.MaxValue;
    private int _violationToken;
    private string? _violation;
    private long _unpairedAt = long.MaxValue;
    private int _unpairedString;
    private long _cutAt = long.MaxValue;
    private Cut _cut;

    // The reader's side: the end of the bytes pulled so far, and whether it has seen the end of the input.
    private long _pulled;
    private bool _endPulled;

    /// <summary>
    /// Passes on <paramref name="inner"/> (left open), whose remaining bytes are <paramref name="bytes"/>; the caller keeps
    /// both unchanged until this is disposed. Who scanned each chunk is counted on <paramref name="counters"/>.
    /// </summary>
    public ScanAheadStream(Stream inner, ReadOnlySequence<byte> bytes, SpareCoreCounters counters)
    {
        ArgumentNullException.ThrowIfNull(inner);
        _inner = inner;
        _counters = counters;
        _bytes = bytes;
        _nextSegment = bytes.Start;
    }

    /// <inheritdoc />
    public override int FirstViolationToken => _violationAt < Visible ? _violationToken : 0;

    /// <inheritdoc />
    public override string? Violation => _violationAt < Visible ? _violation : null;

    /// <inheritdoc />
    public override int FirstUnpairedString => _unpairedAt < Visible ? _unpairedString : 0;

    /// <inheritdoc />
    public override Cut CutReason => _cutAt < Visible ? _cut : Cut.None;

    // What the reader has pulled: findings at the end of the input (offset = its length) only once it has seen the end.
    private long Visible => _endPulled ? long.MaxValue : _pulled;

    /// <summary>Queues the helper that scans ahead.</summary>
    public void Start() => ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);

    /// <summary>
    /// Reads <paramref name="pooled"/> from its position with <paramref name="reader"/> into <paramref name="sink"/>,
    /// its bytes scanned ahead on a spare core; the answers, errors included, are those of
    /// <see cref="WidgetEnvelopeReader.ReadInto(Stream, IWidgetSink)"/>. The body stays unchanged until this returns.
    /// </summary>
    /// <returns>The number of widgets read.</returns>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the body is not a valid envelope.</exception>
    public static int ReadInto(WidgetEnvelopeReader reader, RecyclableMemoryStream pooled, IWidgetSink sink, SpareCoreCounters counters)
    {
        ArgumentNullException.ThrowIfNull(reader);
        ArgumentNullException.ThrowIfNull(pooled);
        var ahead = new ScanAheadStream(pooled, pooled.GetReadOnlySequence().Slice(pooled.Position), counters);
        ahead.Start();
        return reader.ReadInto(ahead, sink);
    }

    /// <summary>The helper: scans chunk after chunk until the scan is over or the reader is done.</summary>
    public void Execute()
    {
        while (true)
        {
            lock (_gate)
            {
                if (_closed || _scanOver)
                {
                    return;
                }

                ScanNext(byHelper: true);
            }
        }
    }

    /// <inheritdoc />
    public override int Read(Span<byte> buffer)
    {
        if (Truncated)
        {
            return 0;
        }

        var start = _pulled;
        var read = _inner.Read(buffer);
        if (read == 0)
        {
            ScanTo(long.MaxValue);
            _endPulled = true;
            return 0;
        }

        var end = start + read;
        ScanTo(end);
        _pulled = end;

        // As the scanner does when it scans this chunk itself: pass on the bytes before the cut, nothing after.
        return _cutAt < end ? (int)(_cutAt - start) : read;
    }

    /// <inheritdoc />
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            // After this the helper never touches the bytes again: the caller may return them to the pool.
            lock (_gate)
            {
                _closed = true;
            }
        }

        base.Dispose(disposing);
    }

    // On the reader's thread: scans whatever the helper has not scanned yet up to end (the end of the input: MaxValue).
    private void ScanTo(long end)
    {
        // Nearly always: the helper, ~5 times as fast as decoding, is past this chunk, and the reader takes no lock. The
        // findings are recorded before the progress that covers them is published.
        if (Volatile.Read(ref _scanned) >= end || Volatile.Read(ref _scanOver))
        {
            return;
        }

        lock (_gate)
        {
            while (!_scanOver && _scanned < end)
            {
                ScanNext(byHelper: false);
            }
        }
    }

    // Under _gate: one chunk (within one segment), or the end of the input.
    private void ScanNext(bool byHelper)
    {
        _counters.Scanned(byHelper);
        if (_scanned == _bytes.Length)
        {
            var before = _scanner.Snapshot();
            _scanner.EndOfInput();
            Record(before, ReadOnlySpan<byte>.Empty, _scanned);
            Volatile.Write(ref _scanOver, true);
            return;
        }

        while (_segmentLeft.IsEmpty && _bytes.TryGet(ref _nextSegment, out _segmentLeft))
        {
            // Past the end of a segment (or an empty one): the next.
        }

        var span = _segmentLeft.Span;
        if (span.Length > ChunkBytes)
        {
            span = span[..ChunkBytes];
        }

        _segmentLeft = _segmentLeft[span.Length..];

        var snapshot = _scanner.Snapshot();
        var passed = _scanner.Scan(span);
        Record(snapshot, span, _scanned);
        if (_scanner.Truncated)
        {
            _cutAt = _scanned + passed;
            _cut = _scanner.CutReason;
            Volatile.Write(ref _scanOver, true);
            return;
        }

        Volatile.Write(ref _scanned, _scanned + span.Length);
    }

    // A finding new in this chunk is placed at the byte that caused it: the chunk is replayed from the state before it,
    // byte by byte (only for a chunk with a finding, so never for a valid body).
    private void Record(StrictJsonGuard before, ReadOnlySpan<byte> chunk, long chunkStart)
    {
        var newViolation = _violationAt == long.MaxValue && _scanner.FirstViolationToken != 0;
        var newUnpaired = _unpairedAt == long.MaxValue && _scanner.FirstUnpairedString != 0;
        if (!newViolation && !newUnpaired)
        {
            return;
        }

        var at = chunkStart + chunk.Length;
        for (var k = 0; k < chunk.Length && (newViolation || newUnpaired); k++)
        {
            var passed = before.Scan(chunk.Slice(k, 1));
            if (newViolation && before.FirstViolationToken != 0)
            {
                SetViolation(chunkStart + k);
                newViolation = false;
            }

            if (newUnpaired && before.FirstUnpairedString != 0)
            {
                SetUnpaired(chunkStart + k);
                newUnpaired = false;
            }

            if (passed == 0 || before.Truncated)
            {
                break;
            }
        }

        // Found at the end of the input (or, defensively, not placed by the replay): at the chunk's end.
        if (newViolation)
        {
            SetViolation(at);
        }

        if (newUnpaired)
        {
            SetUnpaired(at);
        }
    }

    private void SetViolation(long at)
    {
        _violationAt = at;
        _violationToken = _scanner.FirstViolationToken;
        _violation = _scanner.Violation;
    }

    private void SetUnpaired(long at)
    {
        _unpairedAt = at;
        _unpairedString = _scanner.FirstUnpairedString;
    }
}
