using System.Buffers;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using WidgetSigning.Envelopes;

namespace WidgetSigning.SpareCores;

/// <summary>
/// Writes and hashes an envelope's canonical form behind its reader, on a spare core. The reader's thread hands each
/// widget over (<see cref="Add"/>); a thread-pool thread writes each run of at least <see cref="Batch"/> widgets into
/// the destination (which feeds every MAC as bytes are committed); once reading ends, the reader's thread writes what
/// is left (<see cref="Complete"/>). A request then costs reading plus the last run instead of reading plus signing.
/// Inline (no core spare) there is no helper: the reader's thread writes each run as soon as it is handed over.
/// Either way a run's widgets are let go once written, so an envelope is never held whole.
/// <para>
/// The two threads take turns under one lock, taken once per run. The reader never waits for the helper except for
/// the run in progress when reading ends; the helper gives up as soon as its core is wanted (another request reading and
/// signing has started), and the reader's thread writes what is left; if the helper never starts (no idle thread), the reader's thread writes
/// everything at the end, as without the pipeline. A failure while writing (the canonical limit, the memory budget)
/// stops the helper and is thrown by <see cref="Complete"/>, after reading: a body the reader rejects is rejected for
/// that, exactly as when writing follows reading. One instance per envelope; a queued work item may outlive it, and
/// touches nothing once <see cref="Complete"/> or <see cref="Abandon"/> has run.
/// </para>
/// </summary>
internal sealed class SigningPipeline : IWidgetSink, IThreadPoolWorkItem
{
    /// <summary>Widgets per run: ~48 KB of the seed's canonical JSON; the last run costs at most ~60 µs (32, 128 and 256 measured: docs/performance.md).</summary>
    internal const int Batch = 128;

    // SpinOnce calls (about 10 spins, then 10 yields: some tens of µs) before the helper sleeps until the next run.
    private const int SpinsBeforeSleeping = 20;
    private const int MaxSleepMilliseconds = 5;

    private readonly object _gate = new();
    private readonly object _sleep = new();
    private readonly IBufferWriter<byte> _destination;
    private readonly SpareCorePolicy _spareCores;
    private readonly bool _inline;
    private Widget[] _widgets;
    private int _count;
    private int _written;
    private bool _closed;
    private Signals _signals;
    private ExceptionDispatchInfo? _failure;

    /// <summary>
    /// Writes the envelope's opening now; <paramref name="expectedWidgets"/> presizes the hand-over array. The helper
    /// leaves once <paramref name="spareCores"/> says its core is wanted. Between runs it
    /// sleeps after a short spin. With <paramref name="inline"/> there is no helper (do not <see cref="Start"/> one): the
    /// reader's thread writes each run as soon as it is read, so no core is asked for and no widget outlives its run.
    /// </summary>
    public SigningPipeline(IBufferWriter<byte> destination, int expectedWidgets, SpareCorePolicy spareCores, bool inline)
    {
        _destination = destination;
        _spareCores = spareCores;
        _inline = inline;
        _widgets = ArrayPool<Widget>.Shared.Rent(Math.Max(expectedWidgets, 2 * Batch));
        CanonicalUtf8Writer.WriteStart(destination);
    }

    /// <summary>Widgets handed over so far.</summary>
    public int Count => _count;

    /// <summary>Queues the helper on the thread pool.</summary>
    public void Start() => ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);

    /// <inheritdoc />
    public void Add(Widget widget)
    {
        var count = _count;
        if (count == _widgets.Length)
        {
            Grow();
        }

        _widgets[count++] = widget;
        _count = count;

        // Published once per run, not per widget: the helper polls this, and a write to a line another core keeps reading
        // costs the reader a cache miss each time (per widget, ~0.3 ms of a 1 MB body).
        if (count % Batch == 0)
        {
            if (_inline)
            {
                // Uncontended (no helper): the lock only keeps TryWrite's one rule, and costs tens of ns per run.
                lock (_gate)
                {
                    if (!_closed)
                    {
                        TryWrite(count, byHelper: false);
                    }
                }

                return;
            }

            Volatile.Write(ref _signals.Published, count);
            WakeHelper();
        }
    }

    /// <summary>The helper: writes runs of widgets as they arrive until reading ends.</summary>
    public void Execute()
    {
        var spinner = default(SpinWait);
        var written = 0;
        while (!Volatile.Read(ref _signals.Stop))
        {
            var available = Volatile.Read(ref _signals.Published);
            if (available == written)
            {
                // Another request started reading and signing: this core is no longer idle. Leave the rest to the reader's
                // thread (Complete writes it), rather than compete with that work for the core.
                if (spinner.Count % 16 == 15 && !_spareCores.CoreStillSpare())
                {
                    return;
                }

                // Spins and yields for a few tens of µs, then sleeps until the reader publishes the next run: the next run
                // is ~200 µs of reading away, and spinning through that cost ~2 ms of CPU per 1 MB request; when no core is
                // spare and this thread shares the reader's, spinning takes the reader's time slices (up to 1.9x reading).
                if (spinner.Count < SpinsBeforeSleeping)
                {
                    spinner.SpinOnce(sleep1Threshold: -1);
                    continue;
                }

                SleepUntilPublished(written);
                spinner = default;
                continue;
            }

            lock (_gate)
            {
                if (_closed || !TryWrite(available, byHelper: true))
                {
                    return;
                }
            }

            written = available;
            spinner = default;
        }
    }

    /// <summary>Reading succeeded: writes the rest and the closing <c>]}</c>; throws what writing threw.</summary>
    public void Complete()
    {
        Volatile.Write(ref _signals.Stop, true);
        WakeHelper();
        lock (_gate)
        {
            if (!_closed && TryWrite(_count, byHelper: false))
            {
                try
                {
                    CanonicalUtf8Writer.WriteEnd(_destination);
                }
                catch (Exception ex)
                {
                    _failure = ExceptionDispatchInfo.Capture(ex);
                }
            }

            _closed = true;
        }

        ReturnWidgets();
        _failure?.Throw();
    }

    /// <summary>Reading failed: the helper stops and writes nothing more. Safe after <see cref="Complete"/>.</summary>
    public void Abandon()
    {
        Volatile.Write(ref _signals.Stop, true);
        WakeHelper();
        lock (_gate)
        {
            _closed = true;
        }

        ReturnWidgets();
    }

    // Sleeps while nothing new is published and reading goes on. The flag is set and fenced before the check, and the
    // reader fences between publishing and reading the flag, so either the reader sees the flag and wakes this thread, or
    // this thread sees the new run and does not sleep. Bounded all the same: a missed wake-up costs at most that long.
    private void SleepUntilPublished(int written)
    {
        lock (_sleep)
        {
            _signals.HelperSleeping = true;
            Interlocked.MemoryBarrier();
            if (Volatile.Read(ref _signals.Published) == written && !Volatile.Read(ref _signals.Stop))
            {
                _spareCores.Counters.HelperSlept();
                Monitor.Wait(_sleep, MaxSleepMilliseconds);
            }

            _signals.HelperSleeping = false;
        }
    }

    // On the reader's thread after publishing (or stopping): a fence, then the helper's flag; a lock only when it sleeps.
    private void WakeHelper()
    {
        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref _signals.HelperSleeping))
        {
            lock (_sleep)
            {
                Monitor.PulseAll(_sleep);
            }
        }
    }

    // Under _gate. A failure closes the pipeline: nothing more is written, and Complete throws it.
    private bool TryWrite(int upTo, bool byHelper)
    {
        try
        {
            if (upTo == _written)
            {
                return true;
            }

            var run = _widgets.AsSpan(_written, upTo - _written);
            CanonicalUtf8Writer.WriteWidgets(run, _written == 0, _destination);

            // Written widgets are let go at once: held to the end, a 1 MB envelope's ~2.5 MB of widgets and strings
            // survived every collection during reading and was copied into older generations.
            run.Clear();
            _written = upTo;
            _spareCores.Counters.Wrote(byHelper);

            return true;
        }
        catch (Exception ex)
        {
            _failure = ExceptionDispatchInfo.Capture(ex);
            _closed = true;
            return false;
        }
    }

    // The helper reads the array only under the lock, so it is swapped under it; the reader's own writes go to the
    // current array, past everything the helper reads.
    private void Grow()
    {
        lock (_gate)
        {
            var larger = ArrayPool<Widget>.Shared.Rent(_widgets.Length * 2);
            Array.Copy(_widgets, larger, _count);
            ArrayPool<Widget>.Shared.Return(_widgets, clearArray: true);
            _widgets = larger;
        }
    }

    // After _closed: no other thread reads the array any more.
    private void ReturnWidgets()
    {
        var widgets = _widgets;
        _widgets = [];
        if (widgets.Length > 0)
        {
            // Cleared: the widgets (and their strings) must not live on in the pool.
            ArrayPool<Widget>.Shared.Return(widgets, clearArray: true);
        }
    }

    /// <summary>What the helper polls, each on a cache line of its own, away from the reader's own fields.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 192)]
    private struct Signals
    {
        [FieldOffset(64)]
        public int Published;

        // Beside Published: the helper sets it only while it sleeps; the reader reads it once per run.
        [FieldOffset(68)]
        public bool HelperSleeping;

        [FieldOffset(128)]
        public bool Stop;
    }
}
