using System.Buffers;
using System.Security.Cryptography;

namespace FunctionApp.Benchmarks.Variants;

/// <summary>
/// Producer/consumer: the writer fills pool blocks on its own thread while a thread-pool thread hashes each
/// committed chunk (at most <c>chunk</c> bytes). Call <see cref="Finish"/> exactly once, even after a failure.
/// </summary>
public sealed class OverlappedHashingBufferWriter : IBufferWriter<byte>, IThreadPoolWorkItem
{
    private readonly IBufferWriter<byte> _destination;
    private readonly IncrementalHash _hash;
    private readonly int _chunk;
    private readonly Queue<ReadOnlyMemory<byte>> _pending = new();
    private readonly object _gate = new();
    private Memory<byte> _lent;
    private bool _started;
    private bool _completed;
    private bool _done;
    private Exception? _failure;

    /// <summary>Creates the pair; the consumer starts with the first committed chunk.</summary>
    public OverlappedHashingBufferWriter(IBufferWriter<byte> destination, IncrementalHash hash, int chunk)
    {
        _destination = destination;
        _hash = hash;
        _chunk = chunk;
    }

    /// <inheritdoc />
    public void Advance(int count)
    {
        var filled = _lent.Slice(0, count);
        _destination.Advance(count);
        _lent = default;
        lock (_gate)
        {
            _pending.Enqueue(filled);
            if (!_started)
            {
                _started = true;
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
            }
            else
            {
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <inheritdoc />
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        var memory = _destination.GetMemory(sizeHint);
        _lent = memory.Length > _chunk ? memory.Slice(0, _chunk) : memory;
        return _lent;
    }

    /// <inheritdoc />
    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    /// <summary>Waits for the consumer to hash everything committed, then writes the MAC (resetting the hash).</summary>
    public void Finish(Span<byte> mac)
    {
        lock (_gate)
        {
            _completed = true;
            Monitor.PulseAll(_gate);
            while (_started && !_done)
            {
                Monitor.Wait(_gate);
            }
        }

        if (_failure is not null)
        {
            throw new CryptographicException("Hashing on the consumer thread failed.", _failure);
        }

        _hash.GetHashAndReset(mac);
    }

    /// <summary>The consumer loop.</summary>
    public void Execute()
    {
        try
        {
            while (true)
            {
                ReadOnlyMemory<byte> next;
                lock (_gate)
                {
                    while (_pending.Count == 0 && !_completed)
                    {
                        Monitor.Wait(_gate);
                    }

                    if (_pending.Count == 0)
                    {
                        break;
                    }

                    next = _pending.Dequeue();
                }

                _hash.AppendData(next.Span);
            }
        }
        catch (Exception ex) when (ex is CryptographicException or ObjectDisposedException)
        {
            _failure = ex;
        }
        finally
        {
            lock (_gate)
            {
                _done = true;
                Monitor.PulseAll(_gate);
            }
        }
    }
}
