using Microsoft.Azure.WebJobs.Description;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Runs a function for each message on a storage queue (our trigger on the Track-2 SDK, registered by
/// <see cref="WidgetQueueWebJobsStartup"/>); the parameter is a <see cref="WidgetSigning.Queues.SigningQueueMessage"/>. Polling,
/// concurrency, visibility, retries and poison follow host.json <c>extensions.queues</c> (<see cref="WidgetQueueOptions"/>).
/// </summary>
[AttributeUsage(AttributeTargets.Parameter)]
[Binding]
public sealed class WidgetQueueTriggerAttribute : Attribute
{
    /// <summary>Listens to <paramref name="queueName"/>, usually a <c>%setting%</c> expression.</summary>
    public WidgetQueueTriggerAttribute(string queueName)
    {
        QueueName = queueName;
    }

    /// <summary>The queue name or <c>%setting%</c> expression (written to function.json as <c>queueName</c>).</summary>
    public string QueueName { get; }

    /// <summary>The storage connection's setting name (written to function.json as <c>connection</c>).</summary>
    public string? Connection { get; set; }
}
