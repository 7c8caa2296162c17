using FunctionApp.Queues;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Settings of the queue trigger, read from host.json <c>extensions.queues</c> with the names and defaults of the
/// Functions queue extension 5.x, so moving to that extension later keeps host.json as it is.
/// </summary>
public sealed class SigningQueueTriggerOptions
{
    /// <summary>The host.json <c>extensions</c> member these options bind to.</summary>
    public const string ExtensionName = "queues";

    /// <summary>The most messages one receive call may return (the queue service allows 32).</summary>
    public const int MaxBatchSize = 32;

    /// <summary>Messages fetched per poll and run in parallel. Default 16. host.json <c>extensions.queues.batchSize</c>.</summary>
    public int BatchSize { get; set; } = 16;

    /// <summary>
    /// When in-flight messages drop to this number, the next batch is fetched; at most <c>batchSize + newBatchThreshold</c>
    /// run at once. Default -1: half of <see cref="BatchSize"/>. host.json <c>extensions.queues.newBatchThreshold</c>.
    /// </summary>
    public int NewBatchThreshold { get; set; } = -1;

    /// <summary>Attempts before a failing message moves to <c>&lt;queue&gt;-poison</c>. Default 5. host.json <c>extensions.queues.maxDequeueCount</c>.</summary>
    public int MaxDequeueCount { get; set; } = 5;

    /// <summary>How long a failed message stays invisible before its retry. Default 0. host.json <c>extensions.queues.visibilityTimeout</c>.</summary>
    public TimeSpan VisibilityTimeout { get; set; } = TimeSpan.Zero;

    /// <summary>The longest wait between polls of an empty queue (the wait doubles from 100 ms up to this). Default 1 minute. host.json <c>extensions.queues.maxPollingInterval</c>.</summary>
    public TimeSpan MaxPollingInterval { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>How message text is encoded, for input and output queues alike. Default base64. host.json <c>extensions.queues.messageEncoding</c>.</summary>
    public QueueMessageEncoding MessageEncoding { get; set; } = QueueMessageEncoding.Base64;

    /// <summary>How long a received message stays invisible while its function runs (10 minutes, as the Functions extension). Keep host.json <c>functionTimeout</c> below it.</summary>
    public TimeSpan MessageLease { get; set; } = TimeSpan.FromMinutes(10);

    /// <summary><see cref="NewBatchThreshold"/> with its default applied.</summary>
    internal int EffectiveNewBatchThreshold => NewBatchThreshold >= 0 ? NewBatchThreshold : BatchSize / 2;
}
