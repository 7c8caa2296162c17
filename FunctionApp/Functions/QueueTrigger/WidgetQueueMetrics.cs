using Microsoft.Azure.WebJobs.Host.Scale;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>One sample of the input queue for runtime scale monitoring.</summary>
public sealed class WidgetQueueMetrics : ScaleMetrics
{
    /// <summary>The approximate number of messages in the queue (visible or not).</summary>
    public long QueueLength { get; set; }

    /// <summary>How long the oldest visible message has waited; zero when none is visible.</summary>
    public TimeSpan QueueTime { get; set; }
}
