using System.Net;
using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using WidgetSigning.Storage;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace WidgetSigning.Queues;

/// <summary>
/// The blob side of queue signing: reads claim-check envelopes into the one stream pool and writes canonical bytes
/// straight from it. No envelope is ever held in one array outside the pool.
/// </summary>
internal sealed class QueueBlobStore
{
    /// <summary>How often a claim read is retried at once when the blob changes between its length check and its download (HTTP 412).</summary>
    internal const int ChangedWhileReadRetries = 2;

    private const string ClaimStreamTag = "claim-check-envelope";

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly QueueOptions _options;
    private readonly WidgetStorageClients _storage;

    /// <summary>Creates the store.</summary>
    public QueueBlobStore(RecyclableMemoryStreamManager streams, IOptions<QueueOptions> options, WidgetStorageClients storage)
    {
        ArgumentNullException.ThrowIfNull(streams);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(storage);
        _streams = streams;
        _options = options.Value;
        _storage = storage;
    }

    /// <summary>
    /// Streams the claim-check blob into a pooled stream positioned at 0 and returns it with the ETag of the version
    /// read; the caller disposes the stream. The blob is read at the version whose type and length were checked
    /// (If-Match on its ETag), so a concurrent overwrite cannot slip past the limit.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: the name leaves the container, or the blob does not exist, is not a block blob or exceeds <see cref="QueueOptions.MaxClaimCheckBytes"/>.</exception>
    /// <exception cref="RequestFailedException">Storage failed (transient: the message is retried).</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: the memory budget (<paramref name="lease"/>) has no room for the blob.</exception>
    public async Task<(RecyclableMemoryStream Body, string ETag)> ReadClaimAsync(BlobReference claim, EnvelopeBudgetLease lease, CancellationToken cancellationToken)
    {
        using var span = Telemetry.WidgetSigningTelemetry.Source.StartActivity(Telemetry.WidgetSigningTelemetry.BlobReadSpan);
        ArgumentNullException.ThrowIfNull(claim);
        var claims = _storage.ClaimsContainer;
        if (!string.Equals(claims.Name, claim.Container, StringComparison.Ordinal))
        {
            throw Problems.MessageRejected($"Claim checks may only point into the container '{claims.Name}'.", $"$.{ClaimCheck.MemberName}.container");
        }

        var blob = ClaimCheckBlobName.Resolve(claims, claim.Blob);
        for (var attempt = 0; ; attempt++)
        {
            BlobProperties properties;
            try
            {
                properties = (await blob.GetPropertiesAsync(cancellationToken: cancellationToken).ConfigureAwait(false)).Value;
            }
            catch (RequestFailedException ex) when (ex.Status == (int)HttpStatusCode.NotFound)
            {
                throw Problems.MessageRejected(
                    $"The claim check points to '{claim.Container}/{EchoText.Of(claim.Blob, 256)}', which does not exist.", $"$.{ClaimCheck.MemberName}.blob", ex);
            }

            if (properties.BlobType != BlobType.Block)
            {
                // An append or page blob can change under us and reads differently: a producer error, not a transient one.
                throw Problems.MessageRejected(
                    $"The claim-check blob is a {properties.BlobType} blob; only block blobs are accepted.", $"$.{ClaimCheck.MemberName}.blob");
            }

            var length = properties.ContentLength;
            var limit = _options.MaxClaimCheckBytes;
            if (length > limit)
            {
                throw Problems.MessageRejected(
                    $"The claim-check blob holds {length} bytes; at most {limit} are accepted ({QueueOptions.SectionName}:{nameof(QueueOptions.MaxClaimCheckBytes)}).",
                    $"$.{ClaimCheck.MemberName}.blob");
            }

            // Charged before the pool hands out a block: the checked length, rounded up to whole blocks by the stream.
            lease?.Cover(length + _streams.Settings.BlockSize);
            var stream = _streams.GetStream(ClaimStreamTag, length);
            try
            {
                await blob.DownloadToAsync(stream, new BlobDownloadToOptions { Conditions = new BlobRequestConditions { IfMatch = properties.ETag } }, cancellationToken)
                    .ConfigureAwait(false);
                stream.Position = 0;
                return (stream, properties.ETag.ToString());
            }
            catch (RequestFailedException ex) when (ex.Status == (int)HttpStatusCode.PreconditionFailed && attempt < ChangedWhileReadRetries)
            {
                // The producer replaced the blob between the check and the read: check the new version instead.
                await stream.DisposeAsync().ConfigureAwait(false);
            }
            catch
            {
                await stream.DisposeAsync().ConfigureAwait(false);
                throw;
            }
        }
    }

    /// <summary>
    /// Writes the canonical bytes to <c>&lt;messageId&gt;/&lt;signature&gt;.json</c> (without the plain form,
    /// <c>&lt;messageId&gt;/&lt;webhook-id&gt;.json</c>), uploaded straight from the signing stream, create-only
    /// (If-None-Match: *). A name is bound to one content, so a blob an output points to is never overwritten: a
    /// redelivery that signs the same bytes finds its blob there (409, the same bytes), and one that signs different
    /// bytes (the producer changed the claim blob) writes a different name.
    /// </summary>
    public async Task<BlobReference> WriteCanonicalAsync(string messageId, SignedEnvelope signed, CancellationToken cancellationToken)
    {
        using var span = Telemetry.WidgetSigningTelemetry.Source.StartActivity(Telemetry.WidgetSigningTelemetry.BlobWriteSpan);
        ArgumentException.ThrowIfNullOrEmpty(messageId);
        ArgumentNullException.ThrowIfNull(signed);
        var container = _storage.CanonicalContainer;

        // Without the plain form, the webhook id (queue_…, from the message id and a SHA-256 of the canonical bytes) binds
        // the name to the content; the webhook signature would not do: it also covers the timestamp, new on each delivery.
        var name = CanonicalBlobName(messageId, signed.Forms.HasPlain() ? signed.Signature.ToHex() : signed.Webhook!.Id);
        await CreateOnlyAsync(container, name, () => new ReadOnlySequenceStream(signed.GetCanonicalBytes()), "application/json", cancellationToken)
            .ConfigureAwait(false);
        return new BlobReference(container.Name, name);
    }

    /// <summary>The canonical blob's name for one message and signature (hex), or webhook id without the plain form.</summary>
    public static string CanonicalBlobName(string messageId, string signatureHex) => $"{messageId}/{signatureHex}.json";

    /// <summary>
    /// Keeps a rejected inline message's body (at most 64 KiB) as <c>&lt;messageId&gt;</c> in the rejected container,
    /// create-only: a redelivery of the same message id carries the same body, so an existing blob is already the copy.
    /// </summary>
    public async Task<BlobReference> WriteRejectedBodyAsync(SigningQueueMessage message, CancellationToken cancellationToken)
    {
        using var span = Telemetry.WidgetSigningTelemetry.Source.StartActivity(Telemetry.WidgetSigningTelemetry.BlobWriteSpan);
        ArgumentNullException.ThrowIfNull(message);
        var container = _storage.RejectedContainer;
        var contentType = message.DecodeError is null ? "application/json" : "text/plain";
        await CreateOnlyAsync(container, message.Id, message.OpenBody, contentType, cancellationToken).ConfigureAwait(false);
        return new BlobReference(container.Name, message.Id);
    }

    // Create-only (If-None-Match: *) because infra lets the app create blobs in these containers but never overwrite or
    // delete them; a 409 means an earlier delivery of the same message wrote the same bytes. The container is created
    // only when Storage says it is missing (Azurite starts empty; in Azure infra creates it and the app may not).
    private static async Task CreateOnlyAsync(BlobContainerClient container, string name, Func<Stream> open, string contentType, CancellationToken cancellationToken)
    {
        var options = new BlobUploadOptions
        {
            HttpHeaders = new BlobHttpHeaders { ContentType = contentType },
            Conditions = new BlobRequestConditions { IfNoneMatch = ETag.All },
        };
        for (var attempt = 0; ; attempt++)
        {
            var source = open();
            await using (source.ConfigureAwait(false))
            {
                try
                {
                    using var expected = ExpectedAnswers.Expect("BlobAlreadyExists", "ContainerNotFound");
                    await container.GetBlobClient(name).UploadAsync(source, options, cancellationToken).ConfigureAwait(false);
                    return;
                }
                catch (RequestFailedException ex) when (ex.Status == (int)HttpStatusCode.Conflict && ex.ErrorCode == "BlobAlreadyExists")
                {
                    return;
                }
                catch (RequestFailedException ex) when (attempt == 0 && ex.Status == (int)HttpStatusCode.NotFound && ex.ErrorCode == "ContainerNotFound")
                {
                    // Created below, then written again.
                }
            }

            using (ExpectedAnswers.Expect("ContainerAlreadyExists"))
            {
                await container.CreateIfNotExistsAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
            }
        }
    }
}
