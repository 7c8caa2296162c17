using FunctionApp.Functions.QueueTrigger;
using Microsoft.Azure.WebJobs;
using WidgetSigning.Queues;

namespace FunctionApp.Functions;

/// <summary>
/// The in-process adapter of queue signing, on our trigger (<see cref="WidgetQueueTriggerAttribute"/>); the work is the
/// core's <see cref="QueueSigningHandler"/>. A released outcome is marked on the message
/// (<see cref="SigningQueueMessage.ReleasedFor"/>): a WebJobs function returns nothing to our listener but the message it
/// was given, and the listener hands a marked message back without a failure.
/// </summary>
public sealed class SignQueueFunction(QueueSigningHandler handler)
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = QueueSigningHandler.FunctionName;

    /// <summary>The queue trigger; every queue and container is on the <c>WidgetStorage</c> connection.</summary>
    [FunctionName(Name)]
    public async Task RunAsync(
        [WidgetQueueTrigger("%" + QueueNames.InputSetting + "%", Connection = QueueOptions.ConnectionSetting)] SigningQueueMessage message,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        var outcome = await handler.HandleAsync(message, cancellationToken).ConfigureAwait(false);
        if (outcome.ReleasedFor is { } retryAfter)
        {
            message.Release(retryAfter);
        }
    }
}
