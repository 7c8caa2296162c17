using FunctionApp.Functions.QueueTrigger;
using Microsoft.Azure.WebJobs;
using WidgetSigning.Queues;

namespace FunctionApp.Functions;

/// <summary>
/// The in-process adapter of queue signing, on our trigger (<see cref="WidgetQueueTriggerAttribute"/>); the work is the
/// core's <see cref="QueueSigningHandler"/>. A message it marks released (<see cref="SigningQueueMessage.ReleasedFor"/>)
/// is handed back by the trigger without a failure.
/// </summary>
public sealed class SignQueueFunction(QueueSigningHandler handler)
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = QueueSigningHandler.FunctionName;

    /// <summary>The queue trigger; every queue and container is on the <c>WidgetStorage</c> connection.</summary>
    [FunctionName(Name)]
    public Task RunAsync(
        [WidgetQueueTrigger("%" + QueueNames.InputSetting + "%", Connection = QueueOptions.ConnectionSetting)] SigningQueueMessage message,
        CancellationToken cancellationToken) => handler.HandleAsync(message, cancellationToken);
}
