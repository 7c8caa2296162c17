using Microsoft.Extensions.Logging;

namespace WidgetSigning.Queues;

/// <summary>Source-generated log messages of queue signing (event ids 5000–5099).</summary>
internal static partial class QueueLog
{
    [LoggerMessage(EventId = 5001, Level = LogLevel.Debug, Message = "Message {MessageId}: read claim check {Container}/{Blob} ({Length} bytes)")]
    public static partial void ClaimCheckRead(ILogger logger, string messageId, string container, string blob, long length);
}
