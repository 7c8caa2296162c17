using System.Buffers;
using System.Collections.Concurrent;

namespace FunctionApp.Isolated.Hosting;

/// <summary>
/// The blocks behind every <see cref="ReceiveBlockMemoryPool"/> of one process. Kestrel creates a pool per I/O queue (one
/// per core, up to 16), so the bound on what is kept for reuse is per process here, not per pool.
/// </summary>
internal sealed class ReceiveBlockStore
{
    /// <summary>The size of every block: the most one receive takes.</summary>
    public const int BlockSize = 64 * 1024;

    private readonly ConcurrentQueue<Block> _free = new();
    private readonly int _maxRetained;
    private int _retained;
    private long _created;

    /// <summary>Creates a store that keeps at most <paramref name="maxRetainedBlocks"/> returned blocks for reuse.</summary>
    public ReceiveBlockStore(int maxRetainedBlocks)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxRetainedBlocks);
        _maxRetained = maxRetainedBlocks;
    }

    /// <summary>How many returned blocks the store keeps now.</summary>
    public int RetainedBlocks => Volatile.Read(ref _retained);

    /// <summary>How many blocks the store has allocated so far.</summary>
    public long CreatedBlocks => Interlocked.Read(ref _created);

    /// <summary>A block for one renter, reused when one is free.</summary>
    public IMemoryOwner<byte> Lend()
    {
        if (_free.TryDequeue(out var block))
        {
            Interlocked.Decrement(ref _retained);
        }
        else
        {
            block = new Block(this);
            Interlocked.Increment(ref _created);
        }

        block.Lend();
        return block;
    }

    private void Return(Block block)
    {
        // Past the bound a block is left to the GC: a burst does not keep memory pinned for the process's life.
        if (Interlocked.Increment(ref _retained) > _maxRetained)
        {
            Interlocked.Decrement(ref _retained);
            return;
        }

        _free.Enqueue(block);
    }

    private sealed class Block(ReceiveBlockStore store) : IMemoryOwner<byte>
    {
        // Pinned (the pinned object heap, not the LOH: below 85,000 bytes) since the socket layer pins every receive buffer.
        private readonly byte[] _array = GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true);
        private int _lent;

        public Memory<byte> Memory => Volatile.Read(ref _lent) == 1
            ? _array
            : throw new ObjectDisposedException(nameof(ReceiveBlockStore), "The block was returned to the pool.");

        public void Lend() => Volatile.Write(ref _lent, 1);

        // Returned once however often it is disposed: a second return would hand one block to two renters.
        public void Dispose()
        {
            if (Interlocked.Exchange(ref _lent, 0) == 1)
            {
                store.Return(this);
            }
        }
    }
}
