using System.Collections.Concurrent;
using System.Net;
using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using FunctionApp.Primitives;
using FunctionApp.Signing;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Queues;

/// <summary>
/// The blob side of queue signing: reads claim-check envelopes into the one stream pool and writes canonical bytes
/// straight from it. No envelope is ever held in one array outside the pool.
/// </summary>
public sealed class QueueBlobStore
{
    /// <summary>How often a claim read is retried at once when the blob changes between its length check and its download (HTTP 412).</summary>
    internal const int ChangedWhileReadRetries = 2;

    private const string ClaimStreamTag = "claim-check-envelope";

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly QueueOptions _options;
    private readonly WidgetStorageClients _storage;

    // Containers this process has already created.
    private readonly ConcurrentDictionary<string, Lazy<Task>> _created = new(StringComparer.Ordinal);

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
    /// <exception cref="MessageRejectedException">The name leaves the container, or the blob does not exist, is not a block blob or exceeds <see cref="QueueOptions.MaxClaimCheckBytes"/>.</exception>
    /// <exception cref="RequestFailedException">Storage failed (transient: the message is retried).</exception>
    public async Task<(RecyclableMemoryStream Body, string ETag)> ReadClaimAsync(BlobReference claim, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(claim);
        var claims = _storage.ClaimsContainer;
        if (!string.Equals(claims.Name, claim.Container, StringComparison.Ordinal))
        {
            throw new MessageRejectedException($"Claim checks may only point into the container '{claims.Name}'.", $"$.{ClaimCheck.MemberName}.container");
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
                throw new MessageRejectedException(
                    $"The claim check points to '{claim.Container}/{EchoText.Truncate(claim.Blob, 256)}', which does not exist.", $"$.{ClaimCheck.MemberName}.blob", ex);
            }

            if (properties.BlobType != BlobType.Block)
            {
                // An append or page blob can change under us and reads differently: a producer error, not a transient one.
                throw new MessageRejectedException(
                    $"The claim-check blob is a {properties.BlobType} blob; only block blobs are accepted.", $"$.{ClaimCheck.MemberName}.blob");
            }

            var length = properties.ContentLength;
            var limit = _options.MaxClaimCheckBytes;
            if (length > limit)
            {
                throw new MessageRejectedException(
                    $"The claim-check blob holds {length} bytes; at most {limit} are accepted ({QueueOptions.SectionName}:{nameof(QueueOptions.MaxClaimCheckBytes)}).",
                    $"$.{ClaimCheck.MemberName}.blob");
            }

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
    /// Writes the canonical bytes to <c>&lt;messageId&gt;/&lt;signature&gt;.json</c>, uploaded straight from the
    /// signing stream, create-only (If-None-Match: *). A name is bound to one signature, so a blob an output points to
    /// is never overwritten: a redelivery that signs the same bytes finds its blob there (409, the same bytes), and one
    /// that signs different bytes (the producer changed the claim blob) writes a different name.
    /// </summary>
    public async Task<BlobReference> WriteCanonicalAsync(string messageId, SignedEnvelope signed, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(messageId);
        ArgumentNullException.ThrowIfNull(signed);
        var container = _storage.CanonicalContainer;
        await EnsureCreatedAsync(container, cancellationToken).ConfigureAwait(false);
        var name = CanonicalBlobName(messageId, signed.Signature.ToHex());
        var blob = container.GetBlobClient(name);
        await using var source = new ReadOnlySequenceStream(signed.GetCanonicalBytes());
        try
        {
            await blob.UploadAsync(
                source,
                new BlobUploadOptions
                {
                    HttpHeaders = new BlobHttpHeaders { ContentType = "application/json" },
                    Conditions = new BlobRequestConditions { IfNoneMatch = ETag.All },
                },
                cancellationToken).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (ex.Status == (int)HttpStatusCode.Conflict)
        {
            // Already written by an earlier delivery of this message, with this signature: the same bytes.
        }

        return new BlobReference(container.Name, name);
    }

    /// <summary>The canonical blob's name for one message and signature (hex).</summary>
    public static string CanonicalBlobName(string messageId, string signatureHex) => $"{messageId}/{signatureHex}.json";

    /// <summary>Keeps a rejected inline message's body (at most 64 KiB) as <c>&lt;messageId&gt;</c> in the rejected container.</summary>
    public async Task<BlobReference> WriteRejectedBodyAsync(SigningQueueMessage message, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        var container = _storage.RejectedContainer;
        await EnsureCreatedAsync(container, cancellationToken).ConfigureAwait(false);
        var blob = container.GetBlobClient(message.Id);
        using var body = message.OpenBody();

        // Overwrite: a redelivery of the same message id carries the same body.
        await blob.UploadAsync(
            body,
            new BlobUploadOptions { HttpHeaders = new BlobHttpHeaders { ContentType = message.DecodeError is null ? "application/json" : "text/plain" } },
            cancellationToken).ConfigureAwait(false);
        return new BlobReference(container.Name, message.Id);
    }

    private Task EnsureCreatedAsync(BlobContainerClient container, CancellationToken cancellationToken)
    {
        var key = container.Uri.AbsoluteUri;
        var creation = _created.GetOrAdd(key, _ => new Lazy<Task>(() => container.CreateIfNotExistsAsync(cancellationToken: CancellationToken.None)));
        return AwaitCreationAsync(key, creation, cancellationToken);
    }

    private async Task AwaitCreationAsync(string key, Lazy<Task> creation, CancellationToken cancellationToken)
    {
        try
        {
            await creation.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (RequestFailedException)
        {
            // A failed creation is retried by the next message, not remembered.
            _created.TryRemove(new KeyValuePair<string, Lazy<Task>>(key, creation));
            throw;
        }
    }
}
