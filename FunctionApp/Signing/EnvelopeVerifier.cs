using FunctionApp.Envelopes;
using FunctionApp.Keys;
using Microsoft.IO;

namespace FunctionApp.Signing;

/// <summary>
/// Checks a signature against an envelope: writes the canonical bytes once into a pooled stream, computes the
/// HMAC under each candidate key and compares in constant time. Host-independent.
/// </summary>
public sealed class EnvelopeVerifier
{
    private const string StreamTag = "canonical-envelope-verify";

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly ISigningKeySource _keys;

    /// <summary>Creates the verifier.</summary>
    public EnvelopeVerifier(RecyclableMemoryStreamManager streams, ISigningKeySource keys)
    {
        _streams = streams;
        _keys = keys;
    }

    /// <summary>
    /// Verifies <paramref name="signature"/> over <paramref name="envelope"/> under <paramref name="keyId"/>, or,
    /// without a key id, under every key still accepted (newest first).
    /// </summary>
    /// <exception cref="Keys.SigningKeyUnavailableException">No key has been obtained yet.</exception>
    public async ValueTask<VerificationOutcome> VerifyAsync(WidgetEnvelope envelope, Signature signature, string? keyId, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        var count = envelope.Widgets.Count;
        IReadOnlyList<SigningKey> candidates;
        if (keyId is not null)
        {
            var key = await _keys.FindKeyAsync(keyId, cancellationToken).ConfigureAwait(false);
            if (key is null)
            {
                return VerificationOutcome.Invalid(keyId, VerificationFailure.UnknownKeyId, count);
            }

            candidates = [key];
        }
        else
        {
            candidates = await _keys.GetVerificationKeysAsync(cancellationToken).ConfigureAwait(false);
        }

        using var canonical = _streams.GetStream(StreamTag);
        // Straight into the stream's blocks; each candidate key then hashes them.
        CanonicalUtf8Writer.Write(envelope, (System.Buffers.IBufferWriter<byte>)canonical);
        var bytes = canonical.GetReadOnlySequence();
        foreach (var key in candidates)
        {
            // Signature.FixedTimeEquals: CryptographicOperations.FixedTimeEquals, so timing says nothing about how many bytes matched.
            if (key.Sign(bytes).FixedTimeEquals(signature))
            {
                return VerificationOutcome.Valid(key.KeyId, count);
            }
        }

        return VerificationOutcome.Invalid(keyId, VerificationFailure.SignatureMismatch, count);
    }
}
