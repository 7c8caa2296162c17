using System.Buffers;

namespace FunctionApp.Isolated.Hosting;

/// <summary>
/// A Kestrel memory pool of <see cref="ReceiveBlockStore.BlockSize"/> pinned blocks instead of Kestrel's 4 KiB. Kestrel's
/// socket loop receives into the rest of the current pipe segment, so with 4 KiB blocks a 1 MB body forwarded by the host
/// took ~290 receives (each after a zero-byte readiness read: ~576 <c>recvfrom</c> calls per request) and as many pipe
/// wake-ups; with 64 KiB blocks each receive takes what the host has sent (docs/decisions/receive-blocks-64k.md). Written here
/// because Kestrel's own pool has a fixed block size and no served library provides a <see cref="MemoryPool{T}"/> for it.
/// </summary>
internal sealed class ReceiveBlockMemoryPool : MemoryPool<byte>
{
    private readonly ReceiveBlockStore _store;
    private volatile bool _disposed;

    /// <summary>Creates a pool that lends blocks from, and returns them to, <paramref name="store"/>.</summary>
    public ReceiveBlockMemoryPool(ReceiveBlockStore store)
    {
        ArgumentNullException.ThrowIfNull(store);
        _store = store;
    }

    /// <inheritdoc />
    public override int MaxBufferSize => ReceiveBlockStore.BlockSize;

    /// <inheritdoc />
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, ReceiveBlockStore.BlockSize);
        return _store.Lend();
    }

    /// <inheritdoc />
    protected override void Dispose(bool disposing) => _disposed = true; // Blocks still lent come back to the shared store.
}
