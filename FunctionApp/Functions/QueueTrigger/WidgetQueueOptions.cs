using System.ComponentModel.DataAnnotations;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// The queue trigger's behaviour, bound from host.json <c>extensions.queues</c> (the keys the official storage
/// extension reads, so the shipped host.json keeps working) and validated at start-up, each error naming its key.
/// </summary>
public sealed class WidgetQueueOptions
{
    /// <summary>The host.json section, under <c>extensions</c>.</summary>
    public const string ExtensionSection = "queues";

    /// <summary>The most messages one receive call may take (the storage service's own limit).</summary>
    public const int MaxBatchSize = 32;

    private const string Prefix = "host.json extensions.queues.";

    /// <summary>How many messages are fetched at once and run in parallel. Default 16 (1 … 32).</summary>
    [Range(1, MaxBatchSize, ErrorMessage = Prefix + "batchSize must be between {1} and {2}.")]
    public int BatchSize { get; set; } = 16;

    /// <summary>
    /// A new batch is fetched when the messages in flight drop to this many, so at most
    /// <see cref="BatchSize"/> + this run at once. Default (unset): half of <see cref="BatchSize"/>, as the official extension.
    /// </summary>
    [Range(0, 10 * MaxBatchSize, ErrorMessage = Prefix + "newBatchThreshold must be between {1} and {2}.")]
    public int? NewBatchThreshold { get; set; }

    /// <summary>The longest wait between polls of an empty queue; the wait doubles from 100 ms up to it. Default 1 minute (100 ms … 10 min).</summary>
    [Range(typeof(TimeSpan), "00:00:00.1", "00:10:00", ErrorMessage = Prefix + "maxPollingInterval must be between {1} and {2}.")]
    public TimeSpan MaxPollingInterval { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>
    /// How long a received message stays invisible; renewed at half of it while its run is alive, so a run longer than
    /// this is never delivered twice. Also the delay before a failed message is tried again. Default 30 s (1 s … 1 h).
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "01:00:00", ErrorMessage = Prefix + "visibilityTimeout must be between {1} and {2}.")]
    public TimeSpan VisibilityTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>After this many failed attempts a message goes, text intact, to <c>&lt;queue&gt;-poison</c>. Default 5 (1 … 100).</summary>
    [Range(1, 100, ErrorMessage = Prefix + "maxDequeueCount must be between {1} and {2}.")]
    public int MaxDequeueCount { get; set; } = 5;

    /// <summary>
    /// On shutdown, how long runs in flight may take to finish; the rest are cancelled and released (visible again at
    /// once, not counted as a failure). Default 20 s (0 … 5 min). Not a key of the official extension.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:05:00", ErrorMessage = Prefix + "shutdownTimeout must be between {1} and {2}.")]
    public TimeSpan ShutdownTimeout { get; set; } = TimeSpan.FromSeconds(20);

    /// <summary>The threshold in effect.</summary>
    public int EffectiveNewBatchThreshold => NewBatchThreshold ?? BatchSize / 2;
}
