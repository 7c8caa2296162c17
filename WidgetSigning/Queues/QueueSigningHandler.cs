using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Queues;

/// <summary>
/// One queue message's run, whatever the host's trigger: each message on <c>WidgetInputQueue</c> (an envelope inline or
/// a claim check) is signed by the same core as <c>/api/sign</c> and forwarded to <c>WidgetOutputQueue</c>. Invalid input
/// is a permanent failure: it goes to <c>WidgetRejectedQueue</c> with the reason and the run completes, so it is not
/// retried. A <see cref="MessageReleasedException"/> is the outcome <see cref="QueueOutcome.Released"/>, for the host's
/// adapter to hand the message back without a failure. Anything else throws, so the trigger retries it and, after
/// host.json <c>maxDequeueCount</c>, moves it to <c>&lt;input&gt;-poison</c>.
/// </summary>
public sealed class QueueSigningHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "SignQueue";

    private const string AuditOperation = "queue-sign";

    private readonly QueueSigningProcessor _processor;
    private readonly AuditTrail _audit;
    private readonly ILogger<QueueSigningHandler> _logger;
    private readonly SigningMetrics _metrics;
    private readonly TimeProvider _time;
    private readonly int _maxDequeueCount;
    private readonly string _form;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    internal QueueSigningHandler(
        QueueSigningProcessor processor, AuditTrail audit, ILogger<QueueSigningHandler> logger, IOptions<QueueOptions> options, SigningMetrics metrics, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(options);
        _processor = processor;
        _audit = audit;
        _logger = logger;
        var queue = options.Value;
        _maxDequeueCount = queue.MaxDequeueCount;
        _form = SignatureFormNames.NameOf(queue.SignatureForms);
        _metrics = metrics;
        _time = time;
    }

    /// <summary>Signs and forwards, or rejects, or releases one message, and says which; throws for what the trigger should retry.</summary>
    public async Task<QueueOutcome> HandleAsync(SigningQueueMessage message, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        var started = Stopwatch.GetTimestamp();
        using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.SignSpan);
        span?.SetTag(WidgetSigningTelemetry.SourceTag, WidgetSigningTelemetry.QueueSource);
        span?.SetTag("messaging.message.id", message.Id);
        _metrics.QueueMessageStarted(_time.GetUtcNow() - message.InsertionTime, message.DequeueCount);
        try
        {
            string output;
            SignatureMessage signature;
            try
            {
                signature = await _processor.SignAsync(message, cancellationToken).ConfigureAwait(false);
                output = QueueSigningProcessor.EncodeOutput(signature);
            }
            catch (ProblemException ex) when (ex.Is(Problems.Types.InvalidEnvelope) || ex.Is(Problems.Types.MessageRejected))
            {
                // Queue rejections that are not an invalid envelope (undecodable text, a bad claim check, a receiver not
                // allowed or unknown, a canonical form over the bound) share one problem type in the refusals metric;
                // the reason is in the rejected message and the audit record.
                await RejectAsync(message, ex.Message, ex.Problem.JsonPath ?? "$", cancellationToken).ConfigureAwait(false);
                NotSigned(span, started, SignOutcome.Refused, ex.Problem.Type);
                return QueueOutcome.Rejected;
            }

            // The last step that may still be cancelled: once sent, the trigger deletes the input; a crash in between
            // redelivers it, so consumers de-duplicate on messageId (and the trail may hold its record twice).
            cancellationToken.ThrowIfCancellationRequested();

            // Nothing is sent before its record is durable; a store that cannot take it releases the message.
            try
            {
                await _audit.RecordAsync(new AuditRecord
                {
                    Operation = AuditOperation,
                    Outcome = AuditOutcome.Signed,
                    Queue = _processor.InputQueue,
                    MessageId = message.Id,
                    SignedBy = signature.Receivers,
                    WebhookId = signature.Webhook?.Id,
                    WidgetCount = signature.WidgetCount,
                    CanonicalLength = signature.CanonicalLength,
                    CanonicalSha256 = signature.CanonicalSha256,
                }).ConfigureAwait(false);
            }
            catch (ProblemException ex) when (ex.Is(Problems.Types.AuditUnavailable))
            {
                NotSigned(span, started, SignOutcome.Failed, ex.Problem.Type);
                return QueueOutcome.Released(ex.Problem.RetryAfter!.Value);
            }

            await _processor.ForwardAsync(output, CancellationToken.None).ConfigureAwait(false);
            QueueFunctionLog.Forwarded(_logger, FunctionName, message.Id, signature.WidgetCount, signature.KeyId);
            _metrics.Signed(WidgetSigningTelemetry.QueueSource, _form, signature.Receivers.Select(r => r.Receiver.Value), signature.CanonicalLength, Stopwatch.GetElapsedTime(started));
            return QueueOutcome.Forwarded;
        }
        catch (MessageReleasedException ex)
        {
            // Not the message's fault (e.g. the memory budget is spent): hand it back, no failure, never poison.
            return QueueOutcome.Released(ex.RetryAfter);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            // (A cancellation is the trigger's to judge: shutdown releases, a lost lease leaves the message to its new holder.)
            // Transient: the trigger makes the message visible again after visibilityTimeout or, on the last attempt, poisons it.
            QueueFunctionLog.AttemptFailed(_logger, ex, FunctionName, message.Id, message.DequeueCount);
            span?.SetStatus(ActivityStatusCode.Error, ex is ProblemException problem ? SigningMetrics.ShortName(problem.Problem.Type) : ex.GetType().Name);
            _metrics.NotSigned(WidgetSigningTelemetry.QueueSource, _form, SignOutcome.Failed, Stopwatch.GetElapsedTime(started));
            if (message.DequeueCount >= _maxDequeueCount)
            {
                _metrics.Poisoned();
            }

            throw;
        }
    }

    private void NotSigned(Activity? span, long started, SignOutcome outcome, string problemType)
    {
        span?.SetStatus(ActivityStatusCode.Error, SigningMetrics.ShortName(problemType));
        _metrics.Refused(WidgetSigningTelemetry.QueueSource, problemType);
        _metrics.NotSigned(WidgetSigningTelemetry.QueueSource, _form, outcome, Stopwatch.GetElapsedTime(started));
    }

    private async Task RejectAsync(SigningQueueMessage input, string reason, string jsonPath, CancellationToken cancellationToken)
    {
        // If writing the rejection fails, this throws: the message is retried, not dropped.
        var message = await _processor.RejectAsync(input, reason, jsonPath, cancellationToken).ConfigureAwait(false);
        QueueFunctionLog.Rejected(_logger, FunctionName, input.Id, message.JsonPath);
        await _audit.RecordAsync(new AuditRecord
        {
            Operation = AuditOperation,
            Outcome = AuditOutcome.Rejected,
            Problem = Primitives.EchoText.Of(reason, 200),
            Queue = _processor.InputQueue,
            MessageId = input.Id,
        }).ConfigureAwait(false);
    }
}
