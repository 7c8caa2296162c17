using System.Buffers;
using System.Security.Cryptography;

namespace FunctionApp.Keys;

/// <summary>
/// Writing and hashing on two cores: the caller's thread fills the destination's memory, lent at most
/// <c>chunk</c> bytes at a time, while a thread-pool thread appends each committed chunk, in order, to the HMACs it was given.
/// If the pool has not started the hashing by the time writing ends (every core busy), the writer's thread hashes
/// the chunks itself and the queued work item does nothing: never slower than hashing afterwards, by more than a
/// few atomic operations. One instance per signature (a queued work item may outlive it); call <see cref="Finish"/> exactly once.
/// </summary>
/// <remarks>
/// The chunks pass through a single-producer single-consumer ring without a lock (issue 22): with a lock per chunk, the
/// two threads contended for it whenever the hashing kept up with the writing, and each contention cost a wake-up.
/// Either side waits for the other spinning first, and sleeps only past that.
/// </remarks>
internal sealed class OverlappedHashingBufferWriter(IBufferWriter<byte> destination, HashTargets hashes, int chunk)
    : IBufferWriter<byte>, IThreadPoolWorkItem
{
    // 64 chunks of 16 KB: the writer waits only if the hashing falls a whole megabyte behind.
    private const int Capacity = 64;

    // About 20-50 µs of spinning and yielding: several chunks' worth of writing.
    private const int SpinsBeforeSleeping = 40;

    private const int NotQueued = 0;
    private const int Queued = 1;
    private const int Hashing = 2;
    private const int Finished = 3;
    private const int Abandoned = 4;

    private readonly object _sleep = new();
    private ReadOnlyMemory<byte>[] _ring = ArrayPool<ReadOnlyMemory<byte>>.Shared.Rent(Capacity);
    private Memory<byte> _lent;
    private int _state;
    private int _enqueued;
    private int _dequeued;
    private bool _writingDone;
    private bool _consumerSleeping;
    private bool _producerSleeping;
    private Exception? _failure;

    /// <summary>
    /// Runs <paramref name="write"/> into <paramref name="destination"/> with <paramref name="hashes"/> fed on another core
    /// in <paramref name="chunk"/>-byte chunks: the hashing thread queued first, <see cref="Finish"/> called once whatever
    /// happens (after a failure, only to make sure the other thread is done with the memory and the hashes).
    /// </summary>
    public static void Write<TState>(IBufferWriter<byte> destination, HashTargets hashes, int chunk, TState state, Action<IBufferWriter<byte>, TState> write)
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
    }

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _lent.Length);
        var filled = _lent.Slice(0, count);
        destination.Advance(count);
        _lent = default;
        Start();
        Enqueue(filled);
    }

    // Queues the hashing thread: Write does it before the first chunk, so the pool's wake-up overlaps the first writing;
    // the first Advance does it otherwise.
    private void Start()
    {
        if (_state == NotQueued)
        {
            _state = Queued;
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        }
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        var memory = destination.GetMemory(sizeHint);
        _lent = memory.Length > chunk ? memory.Slice(0, chunk) : memory;
        return _lent;
    }

    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    /// <summary>
    /// Ends writing: waits for the hashing thread to append every committed chunk or, if it never started, appends
    /// them here. After a failure to write, pass <paramref name="completed"/> false: it only makes sure the other
    /// thread no longer touches the destination's memory or the hashes.
    /// </summary>
    public void Finish(bool completed)
    {
        Volatile.Write(ref _writingDone, true);
        WakeConsumer();
        var previous = Interlocked.CompareExchange(ref _state, Abandoned, Queued);
        if (previous is NotQueued or Queued or Abandoned)
        {
            // Not started (or given up on when the ring filled): the work item, whenever it runs, finds nothing to do.
            Volatile.Write(ref _state, Abandoned);
        }
        else
        {
            // The other thread has a chunk or two left: spin for it before sleeping (a wake-up costs more).
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

        if (_failure is not null)
        {
            throw new CryptographicException("Hashing the canonical bytes failed.", _failure);
        }

        try
        {
            if (completed)
            {
                // Whatever the other thread did not take (all of it, if it never started).
                for (var i = _dequeued; i < _enqueued; i++)
                {
                    hashes.Append(_ring[i % Capacity].Span);
                }
            }
        }
        finally
        {
            // The other thread is done with it (or will never start). Cleared: the chunks point into the stream's blocks.
            var ring = _ring;
            _ring = [];
            ArrayPool<ReadOnlyMemory<byte>>.Shared.Return(ring, clearArray: true);
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
            while (TryTake(out var next))
            {
                hashes.Append(next.Span);
                Volatile.Write(ref _dequeued, _dequeued + 1);
                WakeProducer();
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

    private void Enqueue(ReadOnlyMemory<byte> filled)
    {
        // Full only if the hashing thread fell a whole ring behind (or never started: then this thread hashes the oldest).
        while (_enqueued - Volatile.Read(ref _dequeued) == Capacity)
        {
            if (Volatile.Read(ref _state) is NotQueued or Queued && Interlocked.CompareExchange(ref _state, Abandoned, Queued) == Queued)
            {
                continue;
            }

            if (_state == Abandoned)
            {
                hashes.Append(_ring[_dequeued % Capacity].Span);
                _dequeued++;
                continue;
            }

            if (Volatile.Read(ref _state) == Finished)
            {
                // The hashing thread failed (Finish throws that): nothing is hashed any more, so the oldest can go.
                _dequeued++;
                continue;
            }

            WaitForConsumer();
        }

        _ring[_enqueued % Capacity] = filled;
        Volatile.Write(ref _enqueued, _enqueued + 1);
        WakeConsumer();
    }

    // On the hashing thread: the next chunk, waiting for it spinning first; false once writing is done and all is taken.
    private bool TryTake(out ReadOnlyMemory<byte> next)
    {
        var spinner = default(SpinWait);
        while (true)
        {
            var dequeued = _dequeued;
            if (dequeued != Volatile.Read(ref _enqueued))
            {
                next = _ring[dequeued % Capacity];
                return true;
            }

            if (Volatile.Read(ref _writingDone))
            {
                // Writing may have committed one more chunk just before it ended.
                if (dequeued != Volatile.Read(ref _enqueued))
                {
                    continue;
                }

                next = default;
                return false;
            }

            if (spinner.Count < SpinsBeforeSleeping)
            {
                spinner.SpinOnce(sleep1Threshold: -1);
                continue;
            }

            SleepWhile(ref _consumerSleeping, static w => w._dequeued == Volatile.Read(ref w._enqueued) && !Volatile.Read(ref w._writingDone));

            spinner = default;
        }
    }

    // Bounded (1 ms): the hashing thread may finish or fail without freeing a slot.
    private void WaitForConsumer() =>
        SleepWhile(ref _producerSleeping, static w => w._enqueued - Volatile.Read(ref w._dequeued) == Capacity && Volatile.Read(ref w._state) == Hashing, 1);

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
