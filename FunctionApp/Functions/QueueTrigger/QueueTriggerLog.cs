using FunctionApp.Queues;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>Source-generated log messages of the queue trigger and adapter (event ids 5010–5099).</summary>
internal static partial class QueueTriggerLog
{
    [LoggerMessage(EventId = 5010, Level = LogLevel.Information, Message = "Listening to queue {Queue} (batchSize {BatchSize}, newBatchThreshold {NewBatchThreshold}, maxDequeueCount {MaxDequeueCount}, messageEncoding {Encoding})")]
    public static partial void ListenerStarted(ILogger logger, string queue, int batchSize, int newBatchThreshold, int maxDequeueCount, QueueMessageEncoding encoding);

    [LoggerMessage(EventId = 5011, Level = LogLevel.Warning, Message = "Message {MessageId} on {Queue} failed on attempt {DequeueCount} of {MaxDequeueCount}; retrying after {VisibilityTimeout}")]
    public static partial void WillRetry(ILogger logger, string queue, string messageId, int dequeueCount, int maxDequeueCount, TimeSpan visibilityTimeout);

    [LoggerMessage(EventId = 5012, Level = LogLevel.Error, Message = "Message {MessageId} on {Queue} failed {DequeueCount} times; moved to {PoisonQueue}")]
    public static partial void MovedToPoison(ILogger logger, string queue, string messageId, int dequeueCount, string poisonQueue);

    [LoggerMessage(EventId = 5013, Level = LogLevel.Warning, Message = "Message {MessageId} on {Queue} could not be deleted: its lease ran out, so it will be delivered again")]
    public static partial void LeaseLost(ILogger logger, string queue, string messageId);

    [LoggerMessage(EventId = 5014, Level = LogLevel.Error, Message = "Polling queue {Queue} failed; backing off")]
    public static partial void PollFailed(ILogger logger, Exception exception, string queue);

    [LoggerMessage(EventId = 5015, Level = LogLevel.Error, Message = "Handling message {MessageId} on {Queue} failed; it becomes visible again within {Lease}")]
    public static partial void HandlingFailed(ILogger logger, Exception exception, string queue, string messageId, TimeSpan lease);

    [LoggerMessage(EventId = 5016, Level = LogLevel.Warning, Message = "Message {MessageId} on {Queue} is not valid base64; it will be rejected")]
    public static partial void DecodeFailed(ILogger logger, string queue, string messageId);

    [LoggerMessage(EventId = 5020, Level = LogLevel.Information, Message = "{Function} signed message {MessageId} ({WidgetCount} widgets, key {KeyId}) and forwarded it to {Queue}")]
    public static partial void Forwarded(ILogger logger, string function, string messageId, int widgetCount, string keyId, string queue);

    [LoggerMessage(EventId = 5021, Level = LogLevel.Warning, Message = "{Function} rejected message {MessageId} at {JsonPath} to {Queue}")]
    public static partial void Rejected(ILogger logger, string function, string messageId, string jsonPath, string queue);
}
