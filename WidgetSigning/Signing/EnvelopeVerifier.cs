using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using Microsoft.IO;
using WidgetSigning.Primitives;

namespace WidgetSigning.Signing;

/// <summary>
/// Checks a signature against an envelope: writes the canonical bytes once into a pooled stream, computes the
/// HMAC under each candidate key and compares in constant time. Host-independent.
/// </summary>
internal sealed class EnvelopeVerifier
{
    private const string StreamTag = "canonical-envelope-verify";

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly IReceiverKeySource _keys;
    private readonly TimeProvider _time;
    private readonly WebhookOptions _webhooks;

    /// <summary>Creates the verifier with the default webhook tolerance and the system clock.</summary>
    public EnvelopeVerifier(RecyclableMemoryStreamManager streams, IReceiverKeySource keys)
        : this(streams, keys, TimeProvider.System, Microsoft.Extensions.Options.Options.Create(new WebhookOptions()))
    {
    }

    /// <summary>Creates the verifier.</summary>
    public EnvelopeVerifier(RecyclableMemoryStreamManager streams, IReceiverKeySource keys, TimeProvider time, Microsoft.Extensions.Options.IOptions<WebhookOptions> webhooks)
    {
        ArgumentNullException.ThrowIfNull(webhooks);
        _streams = streams;
        _keys = keys;
        _time = time;
        _webhooks = webhooks.Value;
    }

    /// <summary>
    /// Verifies <paramref name="signature"/> over <paramref name="envelope"/> under <paramref name="receiver"/>'s key
    /// <paramref name="keyId"/>, or, without a key id, under every key of that receiver still accepted (newest first). No
    /// other receiver's key is ever tried: a signature made for another receiver is invalid here.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: no key exists for <paramref name="receiver"/>.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.KeyUnavailable"/>: the receiver's keys could not be obtained yet.</exception>
    /// <remarks>
    /// With <paramref name="webhook"/>, its timestamp must be within <c>Webhooks:TimestampTolerance</c> of now and one of its
    /// <c>v1</c> entries must match <c>id.timestamp.</c> + the canonical bytes under a key; with both, both must hold.
    /// </remarks>
    public async ValueTask<VerificationOutcome> VerifyAsync(
        WidgetEnvelope envelope, ReceiverId receiver, Signature? signature, string? keyId, WebhookClaim? webhook, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(receiver);
        if (signature is null && webhook is null)
        {
            throw new ArgumentException("A signature or a webhook claim is required.", nameof(signature));
        }

        var count = envelope.Widgets.Count;
        if (webhook is not null)
        {
            // Checked before any hashing: a replay costs no HMAC.
            var age = _time.GetUtcNow().ToUnixTimeSeconds() - webhook.Timestamp;
            var tolerance = (long)_webhooks.TimestampTolerance.TotalSeconds;
            if (age > tolerance)
            {
                return VerificationOutcome.Invalid(keyId, VerificationFailure.TimestampTooOld, count);
            }

            if (-age > tolerance)
            {
                return VerificationOutcome.Invalid(keyId, VerificationFailure.TimestampInFuture, count);
            }
        }

        IReadOnlyList<SigningKey> candidates = await _keys.GetVerificationKeysAsync(receiver, cancellationToken).ConfigureAwait(false);
        if (keyId is not null)
        {
            // Only the receiver's own keys are searched: another receiver's key id is unknown here.
            var key = candidates.FirstOrDefault(k => string.Equals(k.KeyId, keyId, StringComparison.Ordinal));
            if (key is null)
            {
                return VerificationOutcome.Invalid(keyId, VerificationFailure.UnknownKeyId, count);
            }

            candidates = [key];
        }

        using var canonical = _streams.GetStream(StreamTag);
        // Straight into the stream's blocks; each candidate key then hashes them.
        CanonicalUtf8Writer.Write(envelope, (System.Buffers.IBufferWriter<byte>)canonical);
        var bytes = canonical.GetReadOnlySequence();
        SigningKey? hexMatch = null;
        SigningKey? webhookMatch = null;
        foreach (var key in candidates)
        {
            // Signature.FixedTimeEquals: CryptographicOperations.FixedTimeEquals, so timing says nothing about how many bytes matched.
            if (signature is { } hex && hexMatch is null && key.HasHmac && key.Sign(bytes).FixedTimeEquals(hex))
            {
                hexMatch = key;
            }

            if (webhook is not null && webhookMatch is null && key.HasHmac && MatchesWebhook(key, webhook, bytes))
            {
                webhookMatch = key;
            }
        }

        var viaEd25519 = false;
        if (webhook is { Ed25519Signatures.Count: > 0 } && webhookMatch is null && candidates.Any(k => k.Ed25519 is not null))
        {
            webhookMatch = MatchEd25519(candidates, webhook, canonical);
            viaEd25519 = webhookMatch is not null;
        }

        var valid = (signature is null || hexMatch is not null) && (webhook is null || webhookMatch is not null);
        var algorithm = signature is null && webhook is { Signatures.Count: 0 } ? SignatureAlgorithms.Ed25519 : SignedEnvelope.AlgorithmName;
        if (valid && hexMatch is null && viaEd25519)
        {
            algorithm = SignatureAlgorithms.Ed25519;
        }

        return (valid
            ? VerificationOutcome.Valid((hexMatch ?? webhookMatch)!.KeyId, count)
            : VerificationOutcome.Invalid(keyId, VerificationFailure.SignatureMismatch, count)).For(algorithm);
    }

    // v1a: each entry tried under each of the receiver's Ed25519 keys, over one copy of id.timestamp. and the bytes.
    private static SigningKey? MatchEd25519(IReadOnlyList<SigningKey> candidates, WebhookClaim webhook, RecyclableMemoryStream canonical)
    {
        Span<byte> prefix = stackalloc byte[StandardWebhooks.MaxPrefixBytes];
        var message = Ed25519Message.Rent(prefix[..StandardWebhooks.WritePrefix(prefix, webhook.Id, webhook.Timestamp)], canonical, out var length);
        try
        {
            foreach (var key in candidates)
            {
                if (key.Ed25519 is not { } ed25519)
                {
                    continue;
                }

                foreach (var claimed in webhook.Ed25519Signatures)
                {
                    if (ed25519.Verify(message.AsSpan(0, length), claimed))
                    {
                        return key;
                    }
                }
            }

            return null;
        }
        finally
        {
            Ed25519Message.Return(message);
        }
    }

    private static bool MatchesWebhook(SigningKey key, WebhookClaim webhook, System.Buffers.ReadOnlySequence<byte> canonical)
    {
        var expected = StandardWebhooks.Sign(key, webhook.Id, webhook.Timestamp, canonical);
        var matched = false;
        foreach (var claimed in webhook.Signatures)
        {
            // Every entry compared, so the time taken does not say which one matched.
            matched |= expected.FixedTimeEquals(claimed);
        }

        return matched;
    }
}
