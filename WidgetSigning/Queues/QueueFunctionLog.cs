using Microsoft.Extensions.Logging;

namespace WidgetSigning.Queues;

/// <summary>Source-generated log messages of the queue function (either host) (event ids 5010–5099; the extension logs polling and poison itself).</summary>
internal static partial class QueueFunctionLog
{
    [LoggerMessage(EventId = 5011, Level = LogLevel.Warning, Message = "{Function} failed on message {MessageId}, attempt {DequeueCount}; the host retries it, or moves it to the poison queue after maxDequeueCount attempts")]
    public static partial void AttemptFailed(ILogger logger, Exception exception, string function, string messageId, int dequeueCount);

    [LoggerMessage(EventId = 5020, Level = LogLevel.Information, Message = "{Function} signed message {MessageId} ({WidgetCount} widgets, key {KeyId}) and forwarded it")]
    public static partial void Forwarded(ILogger logger, string function, string messageId, int widgetCount, string keyId);

    [LoggerMessage(EventId = 5021, Level = LogLevel.Warning, Message = "{Function} rejected message {MessageId} at {JsonPath}")]
    public static partial void Rejected(ILogger logger, string function, string messageId, string jsonPath);
}
