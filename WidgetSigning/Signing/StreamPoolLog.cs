using Microsoft.Extensions.Logging;
using Microsoft.IO;

namespace WidgetSigning.Signing;

/// <summary>Source-generated log messages of the stream pool (event ids 2000–2099).</summary>
internal static partial class StreamPoolLog
{
    [LoggerMessage(EventId = 2001, Level = LogLevel.Error, Message = "Pooled stream {StreamId} ({Tag}) was disposed twice")]
    public static partial void StreamDoubleDisposed(ILogger logger, Guid streamId, string? tag);

    [LoggerMessage(EventId = 2002, Level = LogLevel.Error, Message = "Pooled stream {StreamId} ({Tag}) was never disposed; its blocks were lost to the pool")]
    public static partial void StreamLeaked(ILogger logger, Guid streamId, string? tag);

    [LoggerMessage(EventId = 2003, Level = LogLevel.Warning, Message = "Pooled stream ({Tag}) asked for {Requested} bytes, over the limit of {Maximum}")]
    public static partial void StreamOverCapacity(ILogger logger, string? tag, long requested, long maximum);

    [LoggerMessage(EventId = 2004, Level = LogLevel.Debug, Message = "Pool discarded a {BufferType} buffer from stream ({Tag}): {Reason}")]
    public static partial void BufferDiscarded(ILogger logger, string? tag, RecyclableMemoryStreamManager.Events.MemoryStreamBufferType bufferType, RecyclableMemoryStreamManager.Events.MemoryStreamDiscardReason reason);
}
