using Azure.Storage.Queues.Models;
using Microsoft.Azure.Functions.Worker;
using WidgetSigning.Queues;

namespace FunctionApp.Isolated.Functions;

/// <summary>
/// The isolated worker's adapter of queue signing, on the official trigger (Worker.Extensions.Storage.Queues): the host's
/// Storage Queues extension polls, decodes base64, retries and poisons after host.json <c>maxDequeueCount</c>. The work is
/// the core's <see cref="QueueSigningHandler"/>.
/// </summary>
public sealed class SignQueueFunction(QueueSigningHandler handler, WidgetStorageClients storage, TimeProvider time)
{
    /// <summary>
    /// How long a run waits out a spent memory budget before it hands the message back: under half host.json's
    /// <c>functionTimeout</c> (5 min), so the run always ends on its own.
    /// </summary>
    public static readonly TimeSpan MaxBudgetWait = TimeSpan.FromMinutes(2);

    /// <summary>The queue trigger; every queue and container is on the <c>WidgetStorage</c> connection.</summary>
    [Function(QueueSigningHandler.FunctionName)]
    public async Task RunAsync(
        [QueueTrigger("%" + QueueNames.InputSetting + "%", Connection = QueueOptions.ConnectionSetting)] QueueMessage message,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        var deadline = time.GetUtcNow() + MaxBudgetWait;
        while (true)
        {
            var input = new SigningQueueMessage(message.MessageId, checked((int)message.DequeueCount), message.InsertedOn, message.Body.ToMemory());
            var outcome = await handler.HandleAsync(input, cancellationToken).ConfigureAwait(false);
            if (outcome.ReleasedFor is not { } retryAfter)
            {
                return;
            }

            // Released (the memory budget is spent): not the message's fault, so never a failure. The official trigger
            // counts every delivery towards maxDequeueCount, so handing it back at once would poison a message after five
            // busy moments; the run waits instead, while the extension keeps the message invisible (it renews the lease of
            // a live run), holding no budget.
            if (time.GetUtcNow() + retryAfter < deadline)
            {
                await Task.Delay(retryAfter, time, cancellationToken).ConfigureAwait(false);
                continue;
            }

            // Still spent after MaxBudgetWait: hand it back for retryAfter and succeed. The extension's delete then meets a
            // changed pop receipt, which it ignores (400 PopReceiptMismatch), so no failure is counted for this run.
            await storage.QueueService.GetQueueClient(storage.Names.WidgetInputQueue)
                .UpdateMessageAsync(message.MessageId, message.PopReceipt, visibilityTimeout: retryAfter, cancellationToken: CancellationToken.None)
                .ConfigureAwait(false);
            return;
        }
    }
}
