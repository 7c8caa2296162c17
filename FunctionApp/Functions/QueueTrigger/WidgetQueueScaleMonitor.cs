using Azure.Storage.Queues;
using Microsoft.Azure.WebJobs.Host.Scale;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Runtime scale monitoring of the input queue (Elastic Premium with runtime scale monitoring on): samples the queue's
/// length and the age of its oldest visible message, and votes on the last <see cref="Samples"/> samples:
/// <list type="number">
/// <item>queue empty in every sample → scale in;</item>
/// <item>length above <see cref="MessagesPerWorker"/> × workers → scale out;</item>
/// <item>length, or the oldest message's age, rising in every step → scale out;</item>
/// <item>length, or the oldest message's age, falling in every step → scale in;</item>
/// <item>otherwise none.</item>
/// </list>
/// The same rule as the official storage extension's queue monitor, so the platform scales this trigger as it would
/// scale a built-in queue trigger.
/// </summary>
internal sealed class WidgetQueueScaleMonitor : IScaleMonitor<WidgetQueueMetrics>
{
    /// <summary>How many samples a vote looks at.</summary>
    public const int Samples = 5;

    /// <summary>The backlog one worker is expected to carry before another is asked for.</summary>
    public const int MessagesPerWorker = 1000;

    private readonly QueueClient _queue;
    private readonly TimeProvider _time;

    public WidgetQueueScaleMonitor(string functionId, QueueClient queue, TimeProvider time)
    {
        _queue = queue;
        _time = time;
        Descriptor = new ScaleMonitorDescriptor($"{functionId}-WidgetQueueTrigger-{queue.Name}".ToLowerInvariant());
    }

    public ScaleMonitorDescriptor Descriptor { get; }

    public async Task<WidgetQueueMetrics> GetMetricsAsync()
    {
        var properties = await _queue.GetPropertiesAsync().ConfigureAwait(false);
        var peeked = await _queue.PeekMessagesAsync(1).ConfigureAwait(false);
        var now = _time.GetUtcNow();
        var oldest = peeked.Value.Length > 0 ? peeked.Value[0].InsertedOn : null;
        return new WidgetQueueMetrics
        {
            QueueLength = properties.Value.ApproximateMessagesCount,
            QueueTime = oldest is { } inserted && inserted < now ? now - inserted : TimeSpan.Zero,
            Timestamp = now.UtcDateTime,
        };
    }

    async Task<ScaleMetrics> IScaleMonitor.GetMetricsAsync() => await GetMetricsAsync().ConfigureAwait(false);

    public ScaleStatus GetScaleStatus(ScaleStatusContext<WidgetQueueMetrics> context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new ScaleStatus { Vote = Vote(context.WorkerCount, context.Metrics?.ToArray() ?? []) };
    }

    public ScaleStatus GetScaleStatus(ScaleStatusContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new ScaleStatus { Vote = Vote(context.WorkerCount, context.Metrics?.OfType<WidgetQueueMetrics>().ToArray() ?? []) };
    }

    /// <summary>The vote for the latest samples (oldest first); the rule is in the class summary.</summary>
    internal static ScaleVote Vote(int workerCount, IReadOnlyList<WidgetQueueMetrics> metrics)
    {
        if (metrics.Count == 0)
        {
            return ScaleVote.None;
        }

        var window = metrics.Skip(Math.Max(0, metrics.Count - Samples)).ToArray();
        var latest = window[^1];
        if (window.Length == Samples && window.All(m => m.QueueLength == 0))
        {
            return ScaleVote.ScaleIn;
        }

        if (latest.QueueLength > (long)Math.Max(workerCount, 1) * MessagesPerWorker)
        {
            return ScaleVote.ScaleOut;
        }

        if (window.Length < Samples)
        {
            return ScaleVote.None;
        }

        if (Monotonic(window, m => m.QueueLength, rising: true) || Monotonic(window, m => m.QueueTime.Ticks, rising: true))
        {
            return ScaleVote.ScaleOut;
        }

        if (Monotonic(window, m => m.QueueLength, rising: false) || Monotonic(window, m => m.QueueTime.Ticks, rising: false))
        {
            return ScaleVote.ScaleIn;
        }

        return ScaleVote.None;
    }

    private static bool Monotonic(WidgetQueueMetrics[] window, Func<WidgetQueueMetrics, long> value, bool rising)
    {
        for (var i = 1; i < window.Length; i++)
        {
            var step = value(window[i]) - value(window[i - 1]);
            if (rising ? step <= 0 : step >= 0)
            {
                return false;
            }
        }

        return true;
    }
}
