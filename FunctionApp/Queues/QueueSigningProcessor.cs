using System.Buffers;
using FunctionApp.Envelopes;
using FunctionApp.Keys;
using FunctionApp.Primitives;
using FunctionApp.Signing;
using Microsoft.Azure.Storage.Blob;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace FunctionApp.Queues;

/// <summary>
/// Signs one queue message, host-independently: resolves a claim check by streaming its blob into the pool, reads
/// the envelope with <see cref="WidgetEnvelopeReader"/>, signs it with <see cref="EnvelopeSigner"/> (the same core as
/// <c>/api/sign</c>) and puts the canonical bytes inline or in a blob. Permanent failures surface as
/// <see cref="EnvelopeFormatException"/> or <see cref="MessageRejectedException"/>; anything else is transient.
/// The containers are those the storage extension binds to the function (connection <c>WidgetStorage</c>).
/// </summary>
public sealed class QueueSigningProcessor
{
    private readonly WidgetEnvelopeReader _reader;
    private readonly EnvelopeSigner _signer;
    private readonly QueueBlobStore _blobs;
    private readonly QueueOptions _options;
    private readonly QueueNames _names;
    private readonly ILogger<QueueSigningProcessor> _logger;

    /// <summary>Creates the processor.</summary>
    public QueueSigningProcessor(
        WidgetEnvelopeReader reader,
        EnvelopeSigner signer,
        QueueBlobStore blobs,
        IOptions<QueueOptions> options,
        IOptions<QueueNames> names,
        ILogger<QueueSigningProcessor> logger)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(names);
        _names = names.Value;
        _reader = reader;
        _signer = signer;
        _blobs = blobs;
        _options = options.Value;
        _logger = logger;
    }

    /// <summary>
    /// Signs <paramref name="message"/> and returns the output message to forward. Claim checks are read from
    /// <paramref name="claims"/> only; canonical bytes too large to inline go to <paramref name="canonical"/>.
    /// </summary>
    /// <exception cref="EnvelopeFormatException">The envelope is invalid (permanent).</exception>
    /// <exception cref="MessageRejectedException">The message is not a usable envelope or claim check (permanent).</exception>
    /// <exception cref="SigningKeyUnavailableException">No key yet (transient).</exception>
    public async Task<SignatureMessage> SignAsync(SigningQueueMessage message, CloudBlobContainer claims, CloudBlobContainer canonical, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(claims);
        ArgumentNullException.ThrowIfNull(canonical);
        if (message.DecodeError is not null)
        {
            throw new MessageRejectedException(message.DecodeError, "$");
        }

        WidgetEnvelope envelope;
        if (ClaimCheck.TryRead(message, claims.Name, out var claim))
        {
            await using var body = await _blobs.ReadClaimAsync(claims, claim!, cancellationToken).ConfigureAwait(false);
            QueueLog.ClaimCheckRead(_logger, message.Id, claim!.Container, EchoText.Truncate(claim.Blob, 256), body.Length);
            envelope = ReadEnvelope(body, claim);
        }
        else
        {
            using var body = message.OpenBody();
            envelope = _reader.Read(body);
        }

        await using var signed = await _signer.SignAsync(envelope, cancellationToken).ConfigureAwait(false);
        string? inline = null;
        BlobReference? canonicalBlob = null;
        if (signed.CanonicalLength <= _options.InlineCanonicalMaxBytes)
        {
            inline = ToBase64(signed.GetCanonicalBytes());
        }
        else
        {
            canonicalBlob = await _blobs.WriteCanonicalAsync(canonical, message.Id, signed, cancellationToken).ConfigureAwait(false);
        }

        return new SignatureMessage
        {
            MessageId = message.Id,
            DequeueCount = message.DequeueCount,
            Algorithm = signed.Algorithm,
            KeyId = signed.KeyId,
            Signature = signed.Signature.ToHex(),
            WidgetCount = signed.WidgetCount,
            CanonicalLength = signed.CanonicalLength,
            CanonicalBase64 = inline,
            CanonicalBlob = canonicalBlob,
            ClaimCheck = claim,
        };
    }

    /// <summary>
    /// Builds the rejected-queue message for a permanent failure. An inline body is copied to the rejected container
    /// first (to <paramref name="rejected"/>), so the producer's data is never lost; a claim check's blob is simply left
    /// where it is.
    /// </summary>
    public async Task<RejectedMessage> RejectAsync(
        SigningQueueMessage message, string reason, string jsonPath, CloudBlobContainer rejected, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(rejected);
        BlobReference? claim = null;
        BlobReference? body = null;
        try
        {
            if (message.DecodeError is null)
            {
                ClaimCheck.TryRead(message, _names.WidgetClaimsContainer, out claim);
            }
        }
        catch (MessageRejectedException)
        {
            // A malformed claim check: its body is what gets kept.
        }

        if (claim is null)
        {
            body = await _blobs.WriteRejectedBodyAsync(rejected, message, cancellationToken).ConfigureAwait(false);
        }

        return new RejectedMessage
        {
            MessageId = message.Id,
            DequeueCount = message.DequeueCount,
            InsertionTime = message.InsertionTime,
            Reason = reason,
            JsonPath = jsonPath,
            ClaimCheck = claim,
            Body = body,
        };
    }

    private WidgetEnvelope ReadEnvelope(Stream body, BlobReference claim)
    {
        try
        {
            return _reader.Read(body);
        }
        catch (EnvelopeFormatException ex)
        {
            // Say where the bad envelope is; the path is within the blob's JSON.
            throw new EnvelopeFormatException($"The envelope in '{claim.Container}/{EchoText.Truncate(claim.Blob, 256)}' is invalid: {ex.Message}", ex.JsonPath, ex);
        }
    }

    private static string ToBase64(ReadOnlySequence<byte> bytes)
    {
        // At most InlineCanonicalMaxBytes (32 KiB): well below the large-object threshold.
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
