using FunctionApp.Envelopes;
using FunctionApp.Queues;
using Microsoft.Azure.Storage.Blob;
using Microsoft.Azure.Storage.Queue;
using Microsoft.Azure.WebJobs;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions;

/// <summary>
/// Queue-triggered signing on the official storage extension: each message on <c>WidgetInputQueue</c> (an envelope inline
/// or a claim check, base64 of the UTF-8 JSON) is signed by the same core as <c>/api/sign</c> and forwarded to
/// <c>WidgetOutputQueue</c>. Invalid input is a permanent failure: it goes to <c>WidgetRejectedQueue</c> with the reason and the
/// function completes, so it is not retried. Anything else (key source, storage) throws, so the extension retries it
/// and, after host.json <c>maxDequeueCount</c>, moves it to <c>&lt;input&gt;-poison</c>.
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

    /// <summary>The queue trigger; every queue and container comes from the extension, on the <c>WidgetStorage</c> connection.</summary>
    [FunctionName(Name)]
    public async Task RunAsync(
        [QueueTrigger("%WidgetInputQueue%", Connection = QueueOptions.ConnectionSetting)] CloudQueueMessage message,
        [Queue("%WidgetOutputQueue%", Connection = QueueOptions.ConnectionSetting)] IAsyncCollector<string> output,
        [Queue("%WidgetRejectedQueue%", Connection = QueueOptions.ConnectionSetting)] IAsyncCollector<string> rejected,
        [Blob("%WidgetClaimsContainer%", Connection = QueueOptions.ConnectionSetting)] CloudBlobContainer claims,
        [Blob("%WidgetCanonicalContainer%", Connection = QueueOptions.ConnectionSetting)] CloudBlobContainer canonical,
        [Blob("%WidgetRejectedContainer%", Connection = QueueOptions.ConnectionSetting)] CloudBlobContainer rejectedBodies,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(rejected);
        var input = QueueMessageDecoder.Decode(message);
        try
        {
            SignatureMessage signature;
            try
            {
                signature = await _processor.SignAsync(input, claims, canonical, cancellationToken).ConfigureAwait(false);
            }
            catch (EnvelopeFormatException ex)
            {
                await RejectAsync(input, ex.Message, ex.JsonPath, rejected, rejectedBodies, cancellationToken).ConfigureAwait(false);
                return;
            }
            catch (MessageRejectedException ex)
            {
                await RejectAsync(input, ex.Message, ex.JsonPath, rejected, rejectedBodies, cancellationToken).ConfigureAwait(false);
                return;
            }

            // The collector sends at once (base64, as the extension encodes every message); the extension deletes the
            // input only after this returns, so a crash in between redelivers it: consumers de-duplicate on messageId.
            await output.AddAsync(signature.ToJson(), cancellationToken).ConfigureAwait(false);
            QueueFunctionLog.Forwarded(_logger, Name, input.Id, signature.WidgetCount, signature.KeyId);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            // Transient: the extension makes the message visible again (visibilityTimeout) or, on the last attempt, poisons it.
            QueueFunctionLog.AttemptFailed(_logger, ex, Name, input.Id, input.DequeueCount);
            throw;
        }
    }

    private async Task RejectAsync(
        SigningQueueMessage input, string reason, string jsonPath, IAsyncCollector<string> rejected, CloudBlobContainer rejectedBodies, CancellationToken cancellationToken)
    {
        // If writing the rejection fails, this throws: the message is retried, not dropped.
        var message = await _processor.RejectAsync(input, reason, jsonPath, rejectedBodies, cancellationToken).ConfigureAwait(false);
        await rejected.AddAsync(message.ToJson(), cancellationToken).ConfigureAwait(false);
        QueueFunctionLog.Rejected(_logger, Name, input.Id, message.JsonPath);
    }
}
