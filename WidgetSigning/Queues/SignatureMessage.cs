using WidgetSigning.Signing;

namespace WidgetSigning.Queues;

/// <summary>
/// The output message: one per input message, carrying the input's message id for de-duplication (delivery is at
/// least once; signing is deterministic, so a redelivery yields the same signature). The exact signed bytes are
/// either inline (<see cref="CanonicalBase64"/>) or in a blob (<see cref="CanonicalBlob"/>), never both. It carries the
/// forms <c>Queues:SignatureForms</c> names: the plain one (<see cref="Signature"/>, <see cref="Signatures"/>), the
/// Standard Webhooks one (<see cref="Webhook"/>), or both.
/// </summary>
internal sealed class SignatureMessage
{
    /// <summary>The input message's id.</summary>
    public required string MessageId { get; init; }

    /// <summary>The input message's dequeue count when it was signed (greater than 1 on a retry).</summary>
    public required int DequeueCount { get; init; }

    /// <summary>The schemes the message's signatures use: <c>HMACSHA256</c>, <c>Ed25519</c>, or both, space-separated.</summary>
    public required string Algorithm { get; init; }

    /// <summary>The id of the key that signed (the current key).</summary>
    public required string KeyId { get; init; }

    /// <summary>The plain signature, 64 lowercase hex digits; null (and left out of the JSON, with <see cref="Signatures"/>) without the plain form.</summary>
    public string? Signature { get; init; }

    /// <summary>Every key's plain signature, labelled (current first, then each staged key); empty in messages built by hand and without the plain form.</summary>
    public IReadOnlyList<KeySignature> Signatures { get; init; } = [];

    /// <summary>
    /// Each receiver's signatures, in the order the message named them. With one receiver the message keeps the
    /// single-receiver members (<c>receiver</c>, <c>keyId</c>, <c>signature</c>, <c>signatures</c>, <c>webhook</c>); with
    /// several it carries <c>receivers</c>, each named, and no unnamed signature.
    /// </summary>
    public IReadOnlyList<ReceiverSignature> Receivers { get; init; } = [];

    /// <summary>The Standard Webhooks headers over the canonical bytes (<c>webhook-id</c> derived from the input message id and the canonical bytes: <c>queue_…</c>); null if not made.</summary>
    public WebhookSignature? Webhook { get; init; }

    /// <summary>How many widgets were signed.</summary>
    public required int WidgetCount { get; init; }

    /// <summary>The length of the canonical bytes.</summary>
    public required long CanonicalLength { get; init; }

    /// <summary>Base64 of the canonical bytes when they fit inline; otherwise null.</summary>
    public string? CanonicalBase64 { get; init; }

    /// <summary>The SHA-256 of the canonical bytes, for the audit record (not sent: the receiver can compute it).</summary>
    internal string CanonicalSha256 { get; init; } = string.Empty;

    /// <summary>The blob holding the canonical bytes when they did not fit inline; otherwise null.</summary>
    public BlobReference? CanonicalBlob { get; init; }

    /// <summary>The claim check the envelope came from, if it came by claim check.</summary>
    public BlobReference? ClaimCheck { get; init; }

    /// <summary>The W3C <c>traceparent</c> of the signing run's span, when it ran in a trace: consumers continue or link to it.</summary>
    public string? TraceParent { get; init; }

    /// <summary>The message's JSON (a few hundred bytes plus the inline canonical bytes).</summary>
    public string ToJson()
    {
        return QueueJson.Write(json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("messageId");
            json.WriteValue(MessageId);
            json.WritePropertyName("dequeueCount");
            json.WriteValue(DequeueCount);
            json.WritePropertyName("algorithm");
            json.WriteValue(Algorithm);
            var single = Receivers.Count <= 1;
            if (single)
            {
                if (Receivers.Count == 1)
                {
                    json.WritePropertyName("receiver");
                    json.WriteValue(Receivers[0].Receiver.Value);
                }

                json.WritePropertyName("keyId");
                json.WriteValue(KeyId);
                if (Signature is not null)
                {
                    json.WritePropertyName("signature");
                    json.WriteValue(Signature);
                }
            }

            json.WritePropertyName("widgetCount");
            json.WriteValue(WidgetCount);
            json.WritePropertyName("canonicalLength");
            json.WriteValue(CanonicalLength);
            if (CanonicalBase64 is not null)
            {
                json.WritePropertyName("canonicalBase64");
                json.WriteValue(CanonicalBase64);
            }

            if (single)
            {
                SignatureJson.WriteSignatures(json, Signature is null ? null : Signatures, Webhook, Receivers.Count == 1 ? Receivers[0].Ed25519Signatures : null);
            }
            else
            {
                // Each receiver's plain signatures are empty when that form was not made.
                SignatureJson.WriteReceivers(json, Receivers, plain: true, Webhook);
            }

            QueueJson.WriteBlob(json, "canonicalBlob", CanonicalBlob);
            QueueJson.WriteBlob(json, "claimCheck", ClaimCheck);
            if (TraceParent is not null)
            {
                json.WritePropertyName("traceparent");
                json.WriteValue(TraceParent);
            }

            json.WriteEndObject();
        });
    }
}
