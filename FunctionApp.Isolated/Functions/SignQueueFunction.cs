using Azure.Storage.Queues.Models;
using Microsoft.Azure.Functions.Worker;
using WidgetSigning.Queues;

namespace FunctionApp.Isolated.Functions;

/// <summary>
/// The isolated worker's adapter of queue signing, on the official trigger (Worker.Extensions.Storage.Queues): the host's
/// Storage Queues extension polls, decodes base64, retries and poisons after host.json <c>maxDequeueCount</c>. The work is
/// the core's <see cref="QueueSigningHandler"/>.
/// </summary>
public sealed class SignQueueFunction(QueueSigningHandler handler, WidgetStorageClients storage)
{
    /// <summary>The queue trigger; every queue and container is on the <c>WidgetStorage</c> connection.</summary>
    [Function(QueueSigningHandler.FunctionName)]
    public async Task RunAsync(
        [QueueTrigger("%" + QueueNames.InputSetting + "%", Connection = QueueOptions.ConnectionSetting)] QueueMessage message,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        var input = new SigningQueueMessage(message.MessageId, checked((int)message.DequeueCount), message.InsertedOn, message.Body.ToMemory());
        await handler.HandleAsync(input, cancellationToken).ConfigureAwait(false);
        if (input.ReleasedFor is { } retryAfter)
        {
            // Released, not failed: the official trigger has no "hand back" outcome, so the message is made invisible for
            // retryAfter here and the run succeeds; the extension's delete then meets a changed pop receipt, which it
            // ignores, and the message comes back after retryAfter without a failure counted against it.
            await storage.QueueService.GetQueueClient(storage.Names.WidgetInputQueue)
                .UpdateMessageAsync(message.MessageId, message.PopReceipt, visibilityTimeout: retryAfter, cancellationToken: CancellationToken.None)
                .ConfigureAwait(false);
        }
    }
}
