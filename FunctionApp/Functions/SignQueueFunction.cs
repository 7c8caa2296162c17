using FunctionApp.Envelopes;
using FunctionApp.Functions.QueueTrigger;
using FunctionApp.Queues;
using Microsoft.Azure.WebJobs;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions;

/// <summary>
/// Queue-triggered signing on our trigger (<see cref="WidgetQueueTriggerAttribute"/>): each message on
/// <c>WidgetInputQueue</c> (an envelope inline or a claim check, base64 of the UTF-8 JSON) is signed by the same core as
/// <c>/api/sign</c> and forwarded to <c>WidgetOutputQueue</c>. Invalid input is a permanent failure: it goes to
/// <c>WidgetRejectedQueue</c> with the reason and the function completes, so it is not retried. A
/// <see cref="MessageReleasedException"/> hands the message back (no failure). Anything else throws, so the trigger
/// retries it and, after host.json <c>maxDequeueCount</c>, moves it to <c>&lt;input&gt;-poison</c>.
/// </summary>
public sealed class SignQueueFunction
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = "SignQueue";

    private readonly QueueSigningProcessor _processor;
    private readonly ILogger<SignQueueFunction> _logger;

    /// <summary>Creates the function; the host resolves it from DI.</summary>
    public SignQueueFunction(QueueSigningProcessor processor, ILogger<SignQueueFunction> logger)
    {
        _processor = processor;
        _logger = logger;
    }

    /// <summary>The queue trigger; every queue and container is on the <c>WidgetStorage</c> connection.</summary>
    [FunctionName(Name)]
    public async Task RunAsync(
        [WidgetQueueTrigger("%" + QueueNames.InputSetting + "%", Connection = QueueOptions.ConnectionSetting)] SigningQueueMessage message,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        try
        {
            string output;
            SignatureMessage signature;
            try
            {
                signature = await _processor.SignAsync(message, cancellationToken).ConfigureAwait(false);
                output = QueueSigningProcessor.EncodeOutput(signature);
            }
            catch (EnvelopeFormatException ex)
            {
                await RejectAsync(message, ex.Message, ex.JsonPath, cancellationToken).ConfigureAwait(false);
                return;
            }
            catch (MessageRejectedException ex)
            {
                await RejectAsync(message, ex.Message, ex.JsonPath, cancellationToken).ConfigureAwait(false);
                return;
            }

            // The last step that may still be cancelled: once sent, the trigger deletes the input; a crash in between
            // redelivers it, so consumers de-duplicate on messageId.
            cancellationToken.ThrowIfCancellationRequested();
            await _processor.ForwardAsync(output, CancellationToken.None).ConfigureAwait(false);
            QueueFunctionLog.Forwarded(_logger, Name, message.Id, signature.WidgetCount, signature.KeyId);
        }
        catch (MessageReleasedException ex)
        {
            // Not the message's fault (e.g. the memory budget is spent): hand it back, no failure, never poison.
            message.Release(ex.RetryAfter);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Shutdown or a lost lease: the trigger releases the message (or leaves it to its new holder).
            message.Release(TimeSpan.Zero);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            // Transient: the trigger makes the message visible again after visibilityTimeout or, on the last attempt, poisons it.
            QueueFunctionLog.AttemptFailed(_logger, ex, Name, message.Id, message.DequeueCount);
            throw;
        }
    }

    private async Task RejectAsync(SigningQueueMessage input, string reason, string jsonPath, CancellationToken cancellationToken)
    {
        // If writing the rejection fails, this throws: the message is retried, not dropped.
        var message = await _processor.RejectAsync(input, reason, jsonPath, cancellationToken).ConfigureAwait(false);
        QueueFunctionLog.Rejected(_logger, Name, input.Id, message.JsonPath);
    }
}
