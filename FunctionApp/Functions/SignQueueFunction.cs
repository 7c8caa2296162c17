using FunctionApp.Envelopes;
using FunctionApp.Functions.QueueTrigger;
using FunctionApp.Queues;
using Microsoft.Azure.WebJobs;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace FunctionApp.Functions;

/// <summary>
/// Queue-triggered signing: each message on <c>Queues:Input</c> (an envelope inline or a claim check) is signed by
/// the same core as <c>/api/sign</c> and forwarded to <c>Queues:Output</c>. Invalid input is a permanent failure:
/// it goes to <c>Queues:Rejected</c> with the reason and the function completes, so it is not retried. Anything else
/// (key source, storage) throws, so the trigger retries it and, after <c>maxDequeueCount</c>, moves it to
/// <c>&lt;input&gt;-poison</c>.
/// </summary>
public sealed class SignQueueFunction
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = "SignQueue";

    private readonly QueueSigningProcessor _processor;
    private readonly QueueSender _sender;
    private readonly QueueOptions _queues;
    private readonly QueueMessageEncoding _encoding;
    private readonly ILogger<SignQueueFunction> _logger;

    /// <summary>Creates the function; the host resolves it from DI.</summary>
    public SignQueueFunction(
        QueueSigningProcessor processor,
        QueueSender sender,
        IOptions<QueueOptions> queues,
        IOptions<SigningQueueTriggerOptions> trigger,
        ILogger<SignQueueFunction> logger)
    {
        ArgumentNullException.ThrowIfNull(queues);
        ArgumentNullException.ThrowIfNull(trigger);
        _processor = processor;
        _sender = sender;
        _queues = queues.Value;
        _encoding = trigger.Value.MessageEncoding;
        _logger = logger;
    }

    /// <summary>The queue trigger.</summary>
    [FunctionName(Name)]
    public async Task RunAsync([SigningQueueTrigger] SigningQueueMessage message, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        SignatureMessage signature;
        try
        {
            signature = await _processor.SignAsync(message, cancellationToken).ConfigureAwait(false);
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

        await _sender.SendAsync(_queues.Output, signature.ToJson(), _encoding, cancellationToken).ConfigureAwait(false);
        QueueTriggerLog.Forwarded(_logger, Name, message.Id, signature.WidgetCount, signature.KeyId, _queues.Output);
    }

    private async Task RejectAsync(SigningQueueMessage message, string reason, string jsonPath, CancellationToken cancellationToken)
    {
        // If writing the rejection fails, this throws: the message is retried, not dropped.
        var rejected = await _processor.RejectAsync(message, reason, jsonPath, cancellationToken).ConfigureAwait(false);
        await _sender.SendAsync(_queues.Rejected, rejected.ToJson(), _encoding, cancellationToken).ConfigureAwait(false);
        QueueTriggerLog.Rejected(_logger, Name, message.Id, jsonPath, _queues.Rejected);
    }
}
