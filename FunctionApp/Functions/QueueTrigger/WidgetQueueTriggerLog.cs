using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>The queue trigger's log events (5100s).</summary>
internal static partial class WidgetQueueTriggerLog
{
    [LoggerMessage(EventId = 5101, Level = LogLevel.Information, Message = "Listening to queue {Queue}: batch {BatchSize}, new batch at {NewBatchThreshold}, visibility {VisibilityTimeout}, {MaxDequeueCount} attempts before poison")]
    public static partial void Started(ILogger logger, string queue, int batchSize, int newBatchThreshold, TimeSpan visibilityTimeout, int maxDequeueCount);

    [LoggerMessage(EventId = 5102, Level = LogLevel.Warning, Message = "Polling queue {Queue} failed; next poll in {Delay}")]
    public static partial void PollFailed(ILogger logger, Exception exception, string queue, TimeSpan delay);

    [LoggerMessage(EventId = 5103, Level = LogLevel.Warning, Message = "Message {MessageId} on {Queue} failed attempt {DequeueCount} of {MaxDequeueCount}; visible again in {Delay}")]
    public static partial void WillRetry(ILogger logger, string queue, string messageId, long dequeueCount, int maxDequeueCount, TimeSpan delay);

    [LoggerMessage(EventId = 5104, Level = LogLevel.Error, Message = "Message {MessageId} on {Queue} failed {DequeueCount} attempts; moved to {PoisonQueue} with its text intact")]
    public static partial void MovedToPoison(ILogger logger, string queue, string messageId, long dequeueCount, string poisonQueue);

    [LoggerMessage(EventId = 5105, Level = LogLevel.Warning, Message = "Message {MessageId} on {Queue}: its lease was lost (pop receipt no longer valid, HTTP {Status}); the queue may hand it out again")]
    public static partial void LeaseLost(ILogger logger, string queue, string messageId, int status);

    [LoggerMessage(EventId = 5106, Level = LogLevel.Information, Message = "Message {MessageId} on {Queue} released, visible again in {RetryAfter}: {Reason}")]
    public static partial void Released(ILogger logger, string queue, string messageId, TimeSpan retryAfter, string reason);

    [LoggerMessage(EventId = 5107, Level = LogLevel.Information, Message = "Message {MessageId} on {Queue} released at shutdown (visible again at once, not a failure)")]
    public static partial void ReleasedAtShutdown(ILogger logger, string queue, string messageId);

    [LoggerMessage(EventId = 5108, Level = LogLevel.Warning, Message = "Completing message {MessageId} on {Queue} failed; it becomes visible again when its lease ends")]
    public static partial void CompletionFailed(ILogger logger, Exception exception, string queue, string messageId);

    [LoggerMessage(EventId = 5110, Level = LogLevel.Warning, Message = "Receiving from queue {Queue} has failed {Failures} times in {Elapsed} ({Reason}); the messages of a failing batch stay invisible and are not run. A message whose text Storage cannot return (a character XML 1.0 does not allow) stops a queue this way: see docs/queue.md#a-stuck-queue")]
    public static partial void ReceivesKeepFailing(ILogger logger, string queue, int failures, TimeSpan elapsed, string reason);

    [LoggerMessage(EventId = 5111, Level = LogLevel.Information, Message = "Receiving from queue {Queue} works again: no failure for {Quiet} after {Failures} failed receives")]
    public static partial void ReceivesRecovered(ILogger logger, string queue, TimeSpan quiet, int failures);

    [LoggerMessage(EventId = 5109, Level = LogLevel.Information, Message = "Stopped listening to queue {Queue}; {Released} runs released after the shutdown timeout")]
    public static partial void Stopped(ILogger logger, string queue, int released);
}
