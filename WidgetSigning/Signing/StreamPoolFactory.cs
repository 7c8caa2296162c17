using Microsoft.Extensions.Logging;
using Microsoft.IO;

namespace WidgetSigning.Signing;

/// <summary>Builds the service's one <see cref="RecyclableMemoryStreamManager"/> and wires its diagnostics to logging.</summary>
internal static class StreamPoolFactory
{
    /// <summary>Creates a manager with every option set explicitly from <paramref name="options"/>.</summary>
    public static RecyclableMemoryStreamManager Create(StreamPoolOptions options, ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(logger);
        var manager = new RecyclableMemoryStreamManager(new RecyclableMemoryStreamManager.Options
        {
            BlockSize = options.BlockSize,
            LargeBufferMultiple = options.LargeBufferMultiple,
            MaximumBufferSize = options.MaximumBufferSize,
            UseExponentialLargeBuffer = false,
            MaximumSmallPoolFreeBytes = options.MaximumSmallPoolFreeBytes,
            MaximumLargePoolFreeBytes = options.MaximumLargePoolFreeBytes,
            MaximumStreamCapacity = options.MaximumStreamCapacity,
            // Anything that would copy a whole stream into a new array is a bug on this service's paths.
            ThrowExceptionOnToArray = true,
            // Blocks go back to the pool as soon as a stream is done with them.
            AggressiveBufferReturn = true,
            // Call stacks make leak reports actionable but cost an allocation per stream; off in production.
            GenerateCallStacks = false,
            ZeroOutBuffer = false,
        });

        manager.StreamDoubleDisposed += (_, e) => StreamPoolLog.StreamDoubleDisposed(logger, e.Id, e.Tag);
        manager.StreamFinalized += (_, e) => StreamPoolLog.StreamLeaked(logger, e.Id, e.Tag);
        manager.StreamOverCapacity += (_, e) => StreamPoolLog.StreamOverCapacity(logger, e.Tag, e.RequestedCapacity, e.MaximumCapacity);
        manager.BufferDiscarded += (_, e) => StreamPoolLog.BufferDiscarded(logger, e.Tag, e.BufferType, e.Reason);
        return manager;
    }
}
