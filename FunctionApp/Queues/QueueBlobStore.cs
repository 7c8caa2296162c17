using System.Collections.Concurrent;
using System.Net;
using FunctionApp.Primitives;
using FunctionApp.Signing;
using Microsoft.Azure.Storage;
using Microsoft.Azure.Storage.Blob;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Queues;

/// <summary>
/// The blob side of queue signing, on the containers the storage extension binds: reads claim-check envelopes into
/// the one stream pool and writes canonical bytes from it. No envelope is ever held in one array outside the pool.
/// </summary>
public sealed class QueueBlobStore
{
    private const string ClaimStreamTag = "claim-check-envelope";
    private const string CanonicalStreamTag = "canonical-upload";

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly QueueOptions _options;

    // Containers this process has already created (the extension binds a reference, not an existing container).
    private readonly ConcurrentDictionary<string, Lazy<Task>> _created = new(StringComparer.Ordinal);

    /// <summary>Creates the store.</summary>
    public QueueBlobStore(RecyclableMemoryStreamManager streams, IOptions<QueueOptions> options)
    {
        ArgumentNullException.ThrowIfNull(streams);
        ArgumentNullException.ThrowIfNull(options);
        _streams = streams;
        _options = options.Value;
    }

    /// <summary>
    /// Streams the claim-check blob into a pooled stream positioned at 0; the caller disposes it. The blob is read
    /// at the version whose length was checked (If-Match on its ETag), so a concurrent overwrite cannot slip past the limit.
    /// </summary>
    /// <exception cref="MessageRejectedException">The name leaves the container, or the blob does not exist or exceeds <see cref="QueueOptions.MaxClaimCheckBytes"/>.</exception>
    /// <exception cref="StorageException">Storage failed (transient: the message is retried).</exception>
    /// <exception cref="MemoryBudgetExceededException">The memory budget has no room for the blob (with <paramref name="lease"/>).</exception>
    public async Task<RecyclableMemoryStream> ReadClaimAsync(CloudBlobContainer claims, BlobReference claim, CancellationToken cancellationToken, EnvelopeBudgetLease? lease = null)
    {
        ArgumentNullException.ThrowIfNull(claims);
        ArgumentNullException.ThrowIfNull(claim);
        if (!string.Equals(claims.Name, claim.Container, StringComparison.Ordinal))
        {
            throw new MessageRejectedException($"Claim checks may only point into the container '{claims.Name}'.", $"$.{ClaimCheck.MemberName}.container");
        }

        var blob = ClaimCheckBlobName.Resolve(claims, claim.Blob);
        try
        {
            await blob.FetchAttributesAsync(null, null, null, cancellationToken).ConfigureAwait(false);
        }
        catch (StorageException ex) when (ex.RequestInformation?.HttpStatusCode == (int)HttpStatusCode.NotFound)
        {
            throw new MessageRejectedException(
                $"The claim check points to '{claim.Container}/{EchoText.Truncate(claim.Blob, 256)}', which does not exist.", $"$.{ClaimCheck.MemberName}.blob", ex);
        }

        var length = blob.Properties.Length;
        var limit = _options.MaxClaimCheckBytes;
        if (length > limit)
        {
            throw new MessageRejectedException(
                $"The claim-check blob holds {length} bytes; at most {limit} are accepted ({QueueOptions.SectionName}:{nameof(QueueOptions.MaxClaimCheckBytes)}).",
                $"$.{ClaimCheck.MemberName}.blob");
        }

        // Charged before the pool hands out a block: the checked length, rounded up to whole blocks by the stream.
        lease?.Cover(length + _streams.Settings.BlockSize);
        var stream = _streams.GetStream(ClaimStreamTag, length);
        try
        {
            await blob.DownloadToStreamAsync(stream, AccessCondition.GenerateIfMatchCondition(blob.Properties.ETag), null, null, cancellationToken)
                .ConfigureAwait(false);
            stream.Position = 0;
            return stream;
        }
        catch
        {
            await stream.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// Writes the canonical bytes to <c>&lt;messageId&gt;.json</c> in <paramref name="canonical"/>, from a pooled
    /// stream. A redelivered message overwrites the blob with identical bytes (signing is deterministic).
    /// </summary>
    public async Task<BlobReference> WriteCanonicalAsync(CloudBlobContainer canonical, string messageId, SignedEnvelope signed, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(canonical);
        ArgumentException.ThrowIfNullOrEmpty(messageId);
        ArgumentNullException.ThrowIfNull(signed);
        await EnsureCreatedAsync(canonical, cancellationToken).ConfigureAwait(false);
        var name = messageId + ".json";
        var blob = canonical.GetBlockBlobReference(name);
        blob.Properties.ContentType = "application/json";

        // A seekable pooled copy: the SDK then sends it in one Put Blob with a known length, without buffering it again.
        await using var source = _streams.GetStream(CanonicalStreamTag, signed.CanonicalLength);
        await signed.CopyCanonicalToAsync(source, cancellationToken).ConfigureAwait(false);
        source.Position = 0;
        await blob.UploadFromStreamAsync(source, source.Length, null, null, null, cancellationToken).ConfigureAwait(false);
        return new BlobReference(canonical.Name, name);
    }

    /// <summary>Keeps a rejected inline message's body (at most 64 KiB) as <c>&lt;messageId&gt;</c> in <paramref name="rejected"/>.</summary>
    public async Task<BlobReference> WriteRejectedBodyAsync(CloudBlobContainer rejected, SigningQueueMessage message, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(rejected);
        ArgumentNullException.ThrowIfNull(message);
        await EnsureCreatedAsync(rejected, cancellationToken).ConfigureAwait(false);
        var blob = rejected.GetBlockBlobReference(message.Id);
        blob.Properties.ContentType = message.DecodeError is null ? "application/json" : "text/plain";
        using var body = message.OpenBody();
        await blob.UploadFromStreamAsync(body, body.Length, null, null, null, cancellationToken).ConfigureAwait(false);
        return new BlobReference(rejected.Name, message.Id);
    }

    private Task EnsureCreatedAsync(CloudBlobContainer container, CancellationToken cancellationToken)
    {
        var key = container.Uri.AbsoluteUri;
        var creation = _created.GetOrAdd(key, _ => new Lazy<Task>(() => container.CreateIfNotExistsAsync(
            BlobContainerPublicAccessType.Off, null, null, CancellationToken.None)));
        return AwaitCreationAsync(key, creation, cancellationToken);
    }

    private async Task AwaitCreationAsync(string key, Lazy<Task> creation, CancellationToken cancellationToken)
    {
        try
        {
            await creation.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (StorageException)
        {
            // A failed creation is retried by the next message, not remembered.
            _created.TryRemove(new KeyValuePair<string, Lazy<Task>>(key, creation));
            throw;
        }
    }
}
