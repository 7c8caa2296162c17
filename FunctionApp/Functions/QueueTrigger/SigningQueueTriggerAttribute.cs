using Microsoft.Azure.WebJobs.Description;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Triggers a function for each message on a storage queue, with the function's parameter of type
/// <see cref="Queues.SigningQueueMessage"/>. Without a queue name it listens to <c>Queues:Input</c> (default
/// <c>widget-envelopes</c>); a name may use <c>%setting%</c> expressions. Polling, retries and the poison queue
/// follow host.json <c>extensions.queues</c>, as the Functions queue extension does.
/// </summary>
[AttributeUsage(AttributeTargets.Parameter)]
[Binding]
public sealed class SigningQueueTriggerAttribute : Attribute
{
    /// <summary>Listens to the configured input queue (<c>Queues:Input</c>).</summary>
    public SigningQueueTriggerAttribute()
    {
    }

    /// <summary>Listens to <paramref name="queueName"/> (which may be a <c>%setting%</c> expression).</summary>
    public SigningQueueTriggerAttribute(string queueName)
    {
        QueueName = queueName;
    }

    /// <summary>The queue name or <c>%setting%</c> expression; null for <c>Queues:Input</c>.</summary>
    public string? QueueName { get; }
}
