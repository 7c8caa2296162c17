using System.Buffers;
using System.Security.Cryptography;

namespace FunctionApp.Keys;

/// <summary>
/// Writing and hashing on two cores: the caller's thread fills the destination's memory, lent at most
/// <c>chunk</c> bytes at a time, while a thread-pool thread appends each committed chunk to the HMAC in order.
/// If the pool has not started the hashing by the time writing ends (every core busy), the writer's thread hashes
/// the chunks itself and the queued work item does nothing: never slower than hashing afterwards, by more than a
/// lock. One instance per signature (a queued work item may outlive it); call <see cref="Finish"/> exactly once.
/// </summary>
internal sealed class OverlappedHashingBufferWriter(IBufferWriter<byte> destination, IncrementalHash hash, int chunk)
    : IBufferWriter<byte>, IThreadPoolWorkItem
{
    private readonly object _gate = new();
    private ChunkQueue _pending = new(64);
    private Memory<byte> _lent;
    private State _state;
    private bool _writingDone;
    private Exception? _failure;

    private enum State
    {
        NotQueued,
        Queued,
        Hashing,
        Finished,
        Abandoned,
    }

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _lent.Length);
        var filled = _lent.Slice(0, count);
        destination.Advance(count);
        _lent = default;
        lock (_gate)
        {
            _pending.Enqueue(filled);
            if (_state == State.NotQueued)
            {
                _state = State.Queued;
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
            }
            else if (_state == State.Hashing)
            {
                Monitor.Pulse(_gate);
            }
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
    /// thread no longer touches the destination's memory or the hash.
    /// </summary>
    public void Finish(bool completed)
    {
        lock (_gate)
        {
            _writingDone = true;
            if (_state is State.NotQueued or State.Queued)
            {
                // Not started yet: the work item, whenever it runs, finds nothing to do.
                _state = State.Abandoned;
            }
            else
            {
                Monitor.Pulse(_gate);
                while (_state == State.Hashing)
                {
                    Monitor.Wait(_gate);
                }
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
                while (_pending.TryDequeue(out var rest))
                {
                    hash.AppendData(rest.Span);
                }
            }
        }
        finally
        {
            // The other thread is done with it (or will never start).
            _pending.Return();
        }
    }

    public void Execute()
    {
        lock (_gate)
        {
            if (_state != State.Queued)
            {
                return;
            }

            _state = State.Hashing;
        }

        try
        {
            while (true)
            {
                ReadOnlyMemory<byte> next;
                lock (_gate)
                {
                    while (_pending.Count == 0 && !_writingDone)
                    {
                        Monitor.Wait(_gate);
                    }

                    if (!_pending.TryDequeue(out next))
                    {
                        break;
                    }
                }

                hash.AppendData(next.Span);
            }
        }
        catch (CryptographicException ex)
        {
            _failure = ex;
        }
        finally
        {
            lock (_gate)
            {
                _state = State.Finished;
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <summary>A first-in first-out queue of chunks in a rented array (a signature allocates next to nothing).</summary>
    private struct ChunkQueue(int capacity)
    {
        private ReadOnlyMemory<byte>[] _items = ArrayPool<ReadOnlyMemory<byte>>.Shared.Rent(capacity);
        private int _head;
        private int _count;

        public readonly int Count => _count;

        public void Enqueue(ReadOnlyMemory<byte> chunk)
        {
            if (_count == _items.Length)
            {
                var larger = ArrayPool<ReadOnlyMemory<byte>>.Shared.Rent(_items.Length * 2);
                for (var i = 0; i < _count; i++)
                {
                    larger[i] = _items[(_head + i) % _items.Length];
                }

                ArrayPool<ReadOnlyMemory<byte>>.Shared.Return(_items, clearArray: true);
                _items = larger;
                _head = 0;
            }

            _items[(_head + _count) % _items.Length] = chunk;
            _count++;
        }

        public bool TryDequeue(out ReadOnlyMemory<byte> chunk)
        {
            if (_count == 0)
            {
                chunk = default;
                return false;
            }

            chunk = _items[_head];
            _items[_head] = default;
            _head = (_head + 1) % _items.Length;
            _count--;
            return true;
        }

        public void Return()
        {
            var items = _items;
            _items = [];
            _head = 0;
            _count = 0;
            if (items.Length > 0)
            {
                // Cleared: the chunks point into the stream's blocks, which go back to their own pool.
                ArrayPool<ReadOnlyMemory<byte>>.Shared.Return(items, clearArray: true);
            }
        }
    }
}
