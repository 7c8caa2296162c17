using System.Buffers;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Isolated.Hosting;

/// <summary>
/// Hands Kestrel, which takes its memory pools from this service since .NET 10, a <see cref="ReceiveBlockMemoryPool"/>
/// per transport, all over one <see cref="ReceiveBlockStore"/>.
/// </summary>
internal sealed class ReceiveBlockMemoryPoolFactory(ILogger<ReceiveBlockMemoryPoolFactory> logger) : IMemoryPoolFactory<byte>
{
    /// <summary>Returned blocks the process keeps: 256 × 64 KiB = 16 MiB, about sixteen 1 MB bodies in flight.</summary>
    public const int MaxRetainedBlocks = 256;

    private readonly ReceiveBlockStore _store = new(MaxRetainedBlocks);
    private int _created;

    /// <inheritdoc />
    public MemoryPool<byte> Create(MemoryPoolOptions? options = null)
    {
        // Kestrel asks for several pools at start-up, all over the one store: the first one's line says what they all
        // are, so it is logged once per process rather than once per pool.
        if (Interlocked.Increment(ref _created) == 1)
        {
            HostingLog.MemoryPoolCreated(logger, options?.Owner ?? "unnamed", ReceiveBlockStore.BlockSize, MaxRetainedBlocks);
        }

        return new ReceiveBlockMemoryPool(_store);
    }
}
