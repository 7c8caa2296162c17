using System.Buffers;
using WidgetSigning.Envelopes;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Queues;

/// <summary>
/// Signs one queue message, host-independently: resolves a claim check by streaming its blob into the pool, reads
/// the envelope with <see cref="WidgetEnvelopeReader"/> and signs it as it is read with <see cref="EnvelopeSigner"/> (the
/// same core and path as <c>/api/sign</c>), puts the canonical bytes inline or in a blob, and sends the output or the rejection.
/// Permanent failures surface as a <see cref="ProblemException"/> of <see cref="Problems.Types.InvalidEnvelope"/> or
/// <see cref="Problems.Types.MessageRejected"/>; anything else is transient. Queues and containers are those of <see cref="WidgetStorageClients"/>.
/// </summary>
internal sealed class QueueSigningProcessor
{
    private readonly EnvelopeSigner _signer;
    private readonly QueueBlobStore _blobs;
    private readonly WidgetStorageClients _storage;
    private readonly QueueOptions _options;
    private readonly ILogger<QueueSigningProcessor> _logger;
    private readonly EnvelopeMemoryBudget _budget;
    private readonly Keys.ReceiverId? _defaultReceiver;
    private readonly int _maxReceivers;
    private readonly HashSet<string> _allowedReceivers;

    /// <summary>Creates the processor; bodies and canonical forms are charged to <paramref name="budget"/>.</summary>
    public QueueSigningProcessor(
        EnvelopeSigner signer,
        QueueBlobStore blobs,
        WidgetStorageClients storage,
        IOptions<QueueOptions> options,
        ILogger<QueueSigningProcessor> logger,
        EnvelopeMemoryBudget budget,
        IOptions<Keys.ReceiverOptions> receivers)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(receivers);
        _signer = signer;
        _blobs = blobs;
        _storage = storage;
        _options = options.Value;
        _logger = logger;
        _budget = budget;
        var receiverOptions = receivers.Value;
        _maxReceivers = receiverOptions.MaxPerRequest;
        _defaultReceiver = Keys.ReceiverId.TryParse(_options.DefaultReceiver, out var queueDefault) ? queueDefault : receiverOptions.Default;
        _allowedReceivers = new HashSet<string>(_options.AllowedReceivers.Split(',', StringSplitOptions.RemoveEmptyEntries), StringComparer.Ordinal);
        if (_defaultReceiver is { } fallback)
        {
            _allowedReceivers.Add(fallback.Value);
        }
    }

    /// <summary>The input queue, as audit records name it.</summary>
    internal string InputQueue => _storage.Names.WidgetInputQueue;

    /// <summary>Signs <paramref name="message"/> and returns the output message to forward.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the envelope is invalid (permanent).</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: the message is not a usable envelope or claim check, its canonical form exceeds the bound, or its output would not fit a queue message (permanent).</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.KeyUnavailable"/>: no key yet (transient).</exception>
    /// <exception cref="MessageReleasedException">The memory budget has no room now: hand the message back, not a failure.</exception>
    public async Task<SignatureMessage> SignAsync(SigningQueueMessage message, CancellationToken cancellationToken)
    {
        try
        {
            return await SignWithinBudgetAsync(message, cancellationToken).ConfigureAwait(false);
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.MemoryBudget))
        {
            // Not the message's fault and not a failure: it comes back after RetryAfter, its blocks already back in the pool.
            throw new MessageReleasedException(ex.Message, ex.Problem.RetryAfter!.Value, ex);
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.CanonicalTooLarge))
        {
            throw Problems.MessageRejected(ex.Message, "$", ex);
        }
    }

    [System.Diagnostics.CodeAnalysis.SuppressMessage("Reliability", "CA2000:Dispose objects before losing scope", Justification = "The lease is disposed in finally unless the signed envelope took it (lease = null once SignAsync returned); the analyzer follows the lease into the signer and loses the hand-over.")]
    private async Task<SignatureMessage> SignWithinBudgetAsync(SigningQueueMessage message, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (message.DecodeError is not null)
        {
            throw Problems.MessageRejected(message.DecodeError, "$");
        }

        // A message takes no wait: with the budget spent, it goes straight back to the queue for another instance or later.
        EnvelopeBudgetLease? lease = _budget.Lease();
        try
        {
            lease.Cover(1);

            // webhook-id is derived from the queue message id and the canonical bytes ("queue_…", a namespace no HTTP
            // Idempotency-Key can reach), so a redelivery carries the same id for receivers to dedupe on, and a message
            // whose claim-check blob changed between deliveries does not.
            var seed = StandardWebhooks.IsValidId(message.Id) ? WebhookIdSeed.FromQueueMessageId(message.Id) : (WebhookIdSeed?)null;

            // Read and signed in one pass, as /api/sign is: no widget is kept once written, so a 16 MiB claim check never
            // holds ~2.4 times its size in widgets until it is signed. The signer disposes each body.
            Stream body;
            string? etag = null;
            var isClaim = ClaimCheck.TryRead(message, _storage.Names.WidgetClaimsContainer, _maxReceivers, out var claim, out var named, out var producer);
            LinkProducer(producer);

            // Named in the claim check, or the queue's default; checked before any blob is read.
            IReadOnlyList<Keys.ReceiverId> receivers = named
                ?? (_defaultReceiver is { } fallback ? [fallback] : throw Problems.MessageRejected(
                    $"The message names no receiver and this deployment has no default receiver (settings {QueueOptions.SectionName}:{nameof(QueueOptions.DefaultReceiver)}, {Keys.ReceiverOptions.SectionName}:{nameof(Keys.ReceiverOptions.DefaultReceiver)}): name them in the claim-check form's '{ClaimCheck.ReceiversMemberName}'.",
                    "$"));

            // The queue's gate: its senders sign for its receivers only, checked before any blob is read or key looked up.
            foreach (var receiver in receivers)
            {
                if (!_allowedReceivers.Contains(receiver.Value))
                {
                    throw Problems.MessageRejected(
                        $"Receiver '{receiver.Value}' is not allowed on queue '{_storage.Names.WidgetInputQueue}' (setting {QueueOptions.SectionName}:{nameof(QueueOptions.AllowedReceivers)}); nothing was signed.",
                        $"$.{ClaimCheck.ReceiversMemberName}");
                }
            }

            if (isClaim)
            {
                (body, etag) = await _blobs.ReadClaimAsync(claim!, lease, cancellationToken).ConfigureAwait(false);
                QueueLog.ClaimCheckRead(_logger, message.Id, claim!.Container, EchoText.Of(claim.Blob, 256), body.Length);
            }
            else
            {
                body = message.OpenBody();
            }

            SignedEnvelope signed;
            try
            {
                // The signer disposes the body.
                var sign = new SignRequest { Receivers = receivers, Forms = _options.SignatureForms, IdSeed = seed, Lease = lease };
                signed = await _signer.SignAsync(body, sign, cancellationToken).ConfigureAwait(false);
            }
            catch (ProblemException ex) when (ex.Is(Problems.Types.UnknownReceiver))
            {
                // The producer named a receiver that has no key: nothing is signed for any of them.
                throw Problems.MessageRejected(ex.Message, $"$.{ClaimCheck.ReceiversMemberName}", ex);
            }
            catch (ProblemException ex) when (ex.Is(Problems.Types.ReceiverLookupsLimited))
            {
                // Not the message's fault: it comes back once lookups are allowed again.
                throw new MessageReleasedException(ex.Message, ex.Problem.RetryAfter!.Value, ex);
            }
            catch (ProblemException ex) when (ex.Is(Problems.Types.InvalidEnvelope) && claim is not null)
            {
                // Say where the bad envelope is; the path is within the blob's JSON.
                throw Problems.InvalidEnvelope($"The envelope in '{claim.Container}/{EchoText.Of(claim.Blob, 256)}' is invalid: {ex.Message}", ex.Problem.JsonPath ?? "$", ex);
            }

            lease = null;
            claim = claim is null ? null : claim with { ETag = etag };
            await using (signed.ConfigureAwait(false))
            {
                return await ToOutputAsync(message, claim, signed, cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            lease?.Dispose();
        }
    }

    // The run's trace is the host's invocation; the producer's is another, so it is a link, not a parent.
    private static void LinkProducer(System.Diagnostics.ActivityContext? producer)
    {
#if NET9_0_OR_GREATER
        if (producer is { } context && System.Diagnostics.Activity.Current is { } span)
        {
            span.AddLink(new System.Diagnostics.ActivityLink(context));
        }
#else
        _ = producer;
#endif
    }

    private async Task<SignatureMessage> ToOutputAsync(SigningQueueMessage message, BlobReference? claim, SignedEnvelope signed, CancellationToken cancellationToken)
    {
        string? inline = null;
        BlobReference? canonicalBlob = null;
        if (signed.CanonicalLength <= _options.InlineCanonicalMaxBytes)
        {
            inline = ToBase64(signed.GetCanonicalBytes());
        }
        else
        {
            // Uploaded straight from the signing stream: no second pooled copy to charge.
            canonicalBlob = await _blobs.WriteCanonicalAsync(message.Id, signed, cancellationToken).ConfigureAwait(false);
        }

        var output = Output(message, claim, signed, inline, canonicalBlob);
        if (inline is not null && signed.Receivers.Count > 1 && QueueMessageDecoder.Encode(output.ToJson()).Length > QueueOptions.MaxQueueMessageChars)
        {
            // The inline bound leaves room for one receiver's signatures; many receivers' can fill the rest of a queue
            // message, so their canonical bytes go to a blob rather than the message being rejected.
            canonicalBlob = await _blobs.WriteCanonicalAsync(message.Id, signed, cancellationToken).ConfigureAwait(false);
            output = Output(message, claim, signed, null, canonicalBlob);
        }

        return output;
    }

    private static SignatureMessage Output(SigningQueueMessage message, BlobReference? claim, SignedEnvelope signed, string? inline, BlobReference? canonicalBlob) =>
        new()
        {
            MessageId = message.Id,
            DequeueCount = message.DequeueCount,
            Algorithm = signed.Algorithm,
            KeyId = signed.KeyId,
            Receivers = signed.Receivers,
            Signature = signed.HasHmacSignature ? signed.Signature.ToHex() : null,
            WidgetCount = signed.WidgetCount,
            CanonicalLength = signed.CanonicalLength,
            CanonicalSha256 = signed.CanonicalSha256.ToHex(),
            Signatures = signed.Signatures,
            Webhook = signed.Webhook,
            CanonicalBase64 = inline,
            CanonicalBlob = canonicalBlob,
            ClaimCheck = claim,
            TraceParent = System.Diagnostics.Activity.Current is { IdFormat: System.Diagnostics.ActivityIdFormat.W3C } span ? span.Id : null,
        };

    /// <summary>
    /// The text of <paramref name="signature"/>'s output message, checked to fit a queue message. The option bounds (and,
    /// with several receivers, canonical bytes moved to a blob) make an oversized output impossible; this check stays so
    /// that a bound changed later is a rejection, not a poison.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: the output would exceed 64 KiB.</exception>
    public static string EncodeOutput(SignatureMessage signature)
    {
        ArgumentNullException.ThrowIfNull(signature);
        var text = QueueMessageDecoder.Encode(signature.ToJson());
        if (text.Length > QueueOptions.MaxQueueMessageChars)
        {
            throw Problems.MessageRejected(
                $"The signature's output message would be {text.Length} characters; a queue message holds at most {QueueOptions.MaxQueueMessageChars} (shorten the claim-check name or lower {QueueOptions.SectionName}:{nameof(QueueOptions.InlineCanonicalMaxBytes)}).",
                "$");
        }

        return text;
    }

    /// <summary>Sends an output message (from <see cref="EncodeOutput"/>) to the output queue.</summary>
    public async Task ForwardAsync(string outputText, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(outputText);
        await StorageWrites.SendAsync(_storage.OutputQueue, outputText, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Builds and sends the rejected-queue message for a permanent failure. An inline body is copied to the rejected
    /// container first, so the producer's data is never lost; a claim check's blob is simply left where it is.
    /// </summary>
    public async Task<RejectedMessage> RejectAsync(SigningQueueMessage message, string reason, string jsonPath, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        BlobReference? claim = null;
        BlobReference? body = null;
        try
        {
            if (message.DecodeError is null)
            {
                ClaimCheck.TryRead(message, _storage.Names.WidgetClaimsContainer, out claim);
            }
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.MessageRejected))
        {
            // A malformed claim check: its body is what gets kept.
        }

        if (claim is null)
        {
            body = await _blobs.WriteRejectedBodyAsync(message, cancellationToken).ConfigureAwait(false);
        }

        var rejected = new RejectedMessage
        {
            MessageId = message.Id,
            DequeueCount = message.DequeueCount,
            InsertionTime = message.InsertionTime,
            Reason = reason,
            JsonPath = jsonPath,
            ClaimCheck = claim,
            Body = body,
        };
        await StorageWrites.SendAsync(_storage.RejectedQueue, QueueMessageDecoder.Encode(rejected.ToJson()), cancellationToken).ConfigureAwait(false);
        return rejected;
    }

    private static string ToBase64(ReadOnlySequence<byte> bytes)
    {
        // At most InlineCanonicalMaxBytes (30 KiB): well below the large-object threshold.
        var length = checked((int)bytes.Length);
        var buffer = ArrayPool<byte>.Shared.Rent(length);
        try
        {
            bytes.CopyTo(buffer);
            return Convert.ToBase64String(buffer, 0, length);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
