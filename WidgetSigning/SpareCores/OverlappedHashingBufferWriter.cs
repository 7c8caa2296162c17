using System.Buffers;
using System.Security.Cryptography;
using WidgetSigning.Hashing;

namespace WidgetSigning.SpareCores;

/// <summary>
/// Writing and hashing on two cores, the work shared so that both finish together: the caller's thread fills the
/// destination's memory, lent at most <c>chunk</c> bytes at a time, and a thread-pool thread appends each committed
/// chunk, in order, to each of the HMACs it was given. Whenever the hashing falls behind, the writer's thread hashes a
/// chunk of whichever HMAC is furthest behind and free, then writes on; once writing ends it hashes what is left beside
/// the other thread. If the pool never starts the hashing (every core busy), the writer's thread hashes everything
/// itself: with one HMAC a few chunks behind the writing, with more up to a ring (64 chunks) behind, then in step with
/// it. Never slower than hashing afterwards by more than a few atomic operations per chunk.
/// One instance per signature (a queued work item may outlive it); call <see cref="Finish"/> exactly once.
/// </summary>
/// <remarks>
/// <para>
/// Why shared rather than split by HMAC: a signature carries two HMACs (<c>X-Signature</c> and the Standard
/// Webhooks one), and writing costs ~0.4–0.85 of one, so any fixed split (the writer plus one HMAC on one core, the
/// other HMAC on the other) leaves one core idle for a third of the time. Each HMAC is one sequential chain, so it is
/// owned by one thread at a time: a thread takes it with a compare-and-swap, appends one chunk, and lets it go.
/// </para>
/// <para>
/// The chunks pass through a single-producer ring without a lock; a slot is reused once every HMAC has taken it.
/// Either side waits for the other spinning first, and sleeps only past that.
/// </para>
/// </remarks>
internal sealed class OverlappedHashingBufferWriter : IBufferWriter<byte>, IThreadPoolWorkItem
{
    // 64 chunks of 16 KB: the writer waits only if an HMAC falls a whole megabyte behind.
    private const int Capacity = 64;

    // About 20-50 µs of spinning and yielding: several chunks' worth of writing.
    private const int SpinsBeforeSleeping = 40;

    // Unhashed chunk appends (summed over the HMACs) the writer leaves to the other thread before it hashes one itself
    // while writing: enough that the other thread finds the next one waiting whenever it finishes one.
    private const int Backlog = 4;

    private const int NotQueued = 0;
    private const int Queued = 1;
    private const int Hashing = 2;
    private const int Finished = 3;
    private const int Abandoned = 4;

    private const int Free = 0;
    private const int Taken = 1;

    private readonly IBufferWriter<byte> _destination;
    private readonly HashTargets _hashes;
    private readonly int _chunk;
    private readonly object _sleep = new();

    // Per HMAC m: [2m] how many chunks it has been fed, [2m + 1] whether a thread holds it (Free/Taken).
    private readonly int[] _cursors;
    private ReadOnlyMemory<byte>[] _ring = ArrayPool<ReadOnlyMemory<byte>>.Shared.Rent(Capacity);
    private Memory<byte> _lent;
    private int _state;
    private int _enqueued;
    private int _appendsByTheOtherThread;
    private bool _writingDone;
    private bool _stop;
    private bool _consumerSleeping;
    private bool _producerSleeping;
    private Exception? _failure;

    private OverlappedHashingBufferWriter(IBufferWriter<byte> destination, HashTargets hashes, int chunk)
    {
        _destination = destination;
        _hashes = hashes;
        _chunk = chunk;
        _cursors = new int[2 * hashes.Count];
    }

    /// <summary>
    /// Runs <paramref name="write"/> into <paramref name="destination"/> with <paramref name="hashes"/> fed in
    /// <paramref name="chunk"/>-byte chunks, shared between this thread and a spare core: the hashing thread queued
    /// first, <see cref="Finish"/> called once whatever happens (after a failure, only to make sure the other thread
    /// is done with the memory and the hashes). Returns how many chunk appends the other thread made (0 if it never
    /// started).
    /// </summary>
    public static int Write<TState>(
        IBufferWriter<byte> destination, HashTargets hashes, int chunk, TState state, Action<IBufferWriter<byte>, TState> write)
    {
        var overlapped = new OverlappedHashingBufferWriter(destination, hashes, chunk);
        var completed = false;
        try
        {
            overlapped.Start();
            write(overlapped, state);
            completed = true;
        }
        finally
        {
            overlapped.Finish(completed);
        }

        return overlapped._appendsByTheOtherThread;
    }

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _lent.Length);
        var filled = _lent.Slice(0, count);
        _destination.Advance(count);
        _lent = default;
        Start();
        Enqueue(filled);

        // The other thread cannot keep up alone: take one chunk's worth of hashing off it.
        if (Unhashed() > Backlog)
        {
            TryHashOneChunk(fromLast: false);
        }
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        var memory = _destination.GetMemory(sizeHint);
        _lent = memory.Length > _chunk ? memory.Slice(0, _chunk) : memory;
        return _lent;
    }

    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    /// <summary>
    /// Ends writing: hashes what is left beside the other thread (all of it, if that never started), then waits for
    /// the other thread to let go. After a failure to write, pass <paramref name="completed"/> false: it only makes
    /// sure the other thread no longer touches the destination's memory or the hashes.
    /// </summary>
    public void Finish(bool completed)
    {
        Volatile.Write(ref _stop, !completed);
        Volatile.Write(ref _writingDone, true);
        WakeConsumer();

        // Not started yet: the work item, whenever it runs, finds nothing to do.
        var previous = Interlocked.CompareExchange(ref _state, Abandoned, Queued);
        try
        {
            if (completed)
            {
                HashTheRest();
            }
        }
        finally
        {
            if (previous is Hashing or Finished)
            {
                WaitForTheOtherThread();
            }

            // The other thread is done with it (or will never start). Cleared: the chunks point into the stream's blocks.
            var ring = _ring;
            _ring = [];
            ArrayPool<ReadOnlyMemory<byte>>.Shared.Return(ring, clearArray: true);
        }

        if (_failure is not null)
        {
            throw new CryptographicException("Hashing the canonical bytes failed.", _failure);
        }
    }

    public void Execute()
    {
        if (Interlocked.CompareExchange(ref _state, Hashing, Queued) != Queued)
        {
            return;
        }

        try
        {
            var spinner = default(SpinWait);
            while (!Volatile.Read(ref _stop))
            {
                // Read before trying: once writing is done and nothing is left to take, what remains is the writer's.
                var writingDone = Volatile.Read(ref _writingDone);
                if (TryHashOneChunk(fromLast: true))
                {
                    spinner = default;
                    WakeProducer();
                    continue;
                }

                if (writingDone)
                {
                    break;
                }

                if (spinner.Count < SpinsBeforeSleeping)
                {
                    spinner.SpinOnce(sleep1Threshold: -1);
                    continue;
                }

                SleepWhile(ref _consumerSleeping, static w => !w.AnyFreeWork() && !Volatile.Read(ref w._writingDone));
                spinner = default;
            }
        }
        catch (CryptographicException ex)
        {
            _failure = ex;
        }
        finally
        {
            Volatile.Write(ref _state, Finished);
            WakeProducer();
        }
    }

    // Queues the hashing thread: Write does it before the first chunk, so the pool's wake-up overlaps the first writing.
    private void Start()
    {
        if (_state == NotQueued)
        {
            _state = Queued;
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        }
    }

    private void Enqueue(ReadOnlyMemory<byte> filled)
    {
        // Full only if an HMAC fell a whole ring behind: hash the furthest behind here, or wait for the thread holding it.
        while (_enqueued - LeastHashed() == Capacity)
        {
            if (!TryHashOneChunk(fromLast: false))
            {
                WaitForConsumer();
            }
        }

        _ring[_enqueued % Capacity] = filled;
        Volatile.Write(ref _enqueued, _enqueued + 1);
        WakeConsumer();
    }

    // On the writer's thread once writing is done: each remaining chunk of each HMAC, beside the other thread.
    private void HashTheRest()
    {
        var spinner = default(SpinWait);
        while (Volatile.Read(ref _failure) is null && LeastHashed() < _enqueued)
        {
            if (TryHashOneChunk(fromLast: false))
            {
                spinner = default;
                continue;
            }

            // The other thread holds the last HMAC behind for one chunk.
            spinner.SpinOnce(sleep1Threshold: -1);
        }
    }

    // Takes the free HMAC furthest behind (ties: the writer the first, the other thread the last, so they rarely
    // reach for the same one), feeds it the next chunk and lets it go. False if none is both behind and free.
    private bool TryHashOneChunk(bool fromLast)
    {
        var enqueued = Volatile.Read(ref _enqueued);
        var count = _hashes.Count;
        var best = -1;
        var bestHashed = enqueued;
        for (var k = 0; k < count; k++)
        {
            var m = fromLast ? count - 1 - k : k;
            var hashed = Volatile.Read(ref _cursors[2 * m]);
            if (hashed < bestHashed && Volatile.Read(ref _cursors[(2 * m) + 1]) == Free)
            {
                best = m;
                bestHashed = hashed;
            }
        }

        if (best < 0 || Interlocked.CompareExchange(ref _cursors[(2 * best) + 1], Taken, Free) != Free)
        {
            return false;
        }

        try
        {
            // Read again now that it is held: the other thread may have fed it since.
            var next = _cursors[2 * best];
            if (next < enqueued)
            {
                _hashes.Append(best, _ring[next % Capacity].Span);
                Volatile.Write(ref _cursors[2 * best], next + 1);
                if (fromLast)
                {
                    // Only the other thread asks from the last.
                    _appendsByTheOtherThread++;
                }
            }
        }
        finally
        {
            Volatile.Write(ref _cursors[(2 * best) + 1], Free);
        }

        return true;
    }

    private int Unhashed()
    {
        var backlog = 0;
        for (var m = 0; m < _hashes.Count; m++)
        {
            backlog += _enqueued - Volatile.Read(ref _cursors[2 * m]);
        }

        return backlog;
    }

    private int LeastHashed()
    {
        var least = int.MaxValue;
        for (var m = 0; m < _hashes.Count; m++)
        {
            least = Math.Min(least, Volatile.Read(ref _cursors[2 * m]));
        }

        return least;
    }

    private bool AnyFreeWork()
    {
        var enqueued = Volatile.Read(ref _enqueued);
        for (var m = 0; m < _hashes.Count; m++)
        {
            if (Volatile.Read(ref _cursors[2 * m]) < enqueued && Volatile.Read(ref _cursors[(2 * m) + 1]) == Free)
            {
                return true;
            }
        }

        return false;
    }

    // The other thread has a chunk or two left at most: spin for it before sleeping (a wake-up costs more).
    private void WaitForTheOtherThread()
    {
        var spinner = default(SpinWait);
        while (Volatile.Read(ref _state) != Finished)
        {
            if (spinner.Count < SpinsBeforeSleeping)
            {
                spinner.SpinOnce(sleep1Threshold: -1);
                continue;
            }

            SleepWhile(ref _producerSleeping, static w => Volatile.Read(ref w._state) != Finished);
        }
    }

    // Bounded (1 ms): the hashing thread may finish or fail without freeing a slot.
    private void WaitForConsumer() =>
        SleepWhile(ref _producerSleeping, static w => w._enqueued - w.LeastHashed() == Capacity && Volatile.Read(ref w._state) == Hashing, 1);

    // Sleeps while stillWaiting holds, checked after this side's flag is set and fenced, so the other side either sees
    // the flag and wakes it, or changed the state before the check and it does not sleep.
    private void SleepWhile(ref bool sleeping, Func<OverlappedHashingBufferWriter, bool> stillWaiting, int timeoutMilliseconds = Timeout.Infinite)
    {
        lock (_sleep)
        {
            sleeping = true;
            Interlocked.MemoryBarrier();
            if (stillWaiting(this))
            {
                Monitor.Wait(_sleep, timeoutMilliseconds);
            }

            sleeping = false;
        }
    }

    // A store, a full fence, then the other side's flag: with the same order on the sleeping side, one of the two always
    // sees the other, so no wake-up is lost, and none is paid for while the other side is spinning.
    private void WakeConsumer()
    {
        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref _consumerSleeping))
        {
            lock (_sleep)
            {
                Monitor.PulseAll(_sleep);
            }
        }
    }

    private void WakeProducer()
    {
        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref _producerSleeping))
        {
            lock (_sleep)
            {
                Monitor.PulseAll(_sleep);
            }
        }
    }
}
