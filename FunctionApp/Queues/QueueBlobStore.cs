using System.Net;
using FunctionApp.Signing;
using Microsoft.IO;
using Microsoft.WindowsAzure.Storage;
using Microsoft.WindowsAzure.Storage.Blob;

namespace FunctionApp.Queues;

/// <summary>
/// The blob side of queue signing: reads claim-check envelopes into the one stream pool and writes canonical
/// bytes from it. No envelope is ever held in one array outside the pool.
/// </summary>
public sealed class QueueBlobStore
{
    private const string ClaimStreamTag = "claim-check-envelope";

    private readonly QueueStorage _storage;
    private readonly RecyclableMemoryStreamManager _streams;
    private readonly ContainerInitializer _canonical;
    private readonly ContainerInitializer _rejected;

    /// <summary>Creates the store.</summary>
    public QueueBlobStore(QueueStorage storage, RecyclableMemoryStreamManager streams)
    {
        ArgumentNullException.ThrowIfNull(storage);
        _storage = storage;
        _streams = streams;
        _canonical = new ContainerInitializer(() => storage.Container(storage.Options.CanonicalContainer));
        _rejected = new ContainerInitializer(() => storage.Container(storage.Options.RejectedContainer));
    }

    /// <summary>
    /// Streams the claim-check blob into a pooled stream positioned at 0; the caller disposes it. The blob is read
    /// at the version whose length was checked (If-Match on its ETag), so a concurrent overwrite cannot slip past the limit.
    /// </summary>
    /// <exception cref="MessageRejectedException">The blob does not exist or exceeds <see cref="QueueOptions.MaxClaimCheckBytes"/>.</exception>
    /// <exception cref="StorageException">Storage failed (transient: the message is retried).</exception>
    public async Task<RecyclableMemoryStream> ReadClaimAsync(BlobReference claim, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(claim);
        var blob = _storage.Container(claim.Container).GetBlockBlobReference(claim.Blob);
        try
        {
            await blob.FetchAttributesAsync(null, null, null, cancellationToken).ConfigureAwait(false);
        }
        catch (StorageException ex) when (ex.RequestInformation?.HttpStatusCode == (int)HttpStatusCode.NotFound)
        {
            throw new MessageRejectedException(
                $"The claim check points to '{claim.Container}/{claim.Blob}', which does not exist.", $"$.{ClaimCheck.MemberName}.blob", ex);
        }

        var length = blob.Properties.Length;
        var limit = _storage.Options.MaxClaimCheckBytes;
        if (length > limit)
        {
            throw new MessageRejectedException(
                $"The claim-check blob holds {length} bytes; at most {limit} are accepted ({QueueOptions.SectionName}:{nameof(QueueOptions.MaxClaimCheckBytes)}).",
                $"$.{ClaimCheck.MemberName}.blob");
        }

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
    /// Writes the canonical bytes to <c>&lt;messageId&gt;.json</c> in the canonical container, straight from the pooled
    /// blocks. A redelivered message overwrites the blob with identical bytes (signing is deterministic).
    /// </summary>
    public async Task<BlobReference> WriteCanonicalAsync(string messageId, SignedEnvelope signed, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(messageId);
        ArgumentNullException.ThrowIfNull(signed);
        var container = await _canonical.GetAsync(cancellationToken).ConfigureAwait(false);
        var name = messageId + ".json";
        var blob = container.GetBlockBlobReference(name);
        blob.Properties.ContentType = "application/json";
        using var source = new ReadOnlySequenceStream(signed.GetCanonicalBytes());
        await blob.UploadFromStreamAsync(source, source.Length, null, null, null, cancellationToken).ConfigureAwait(false);
        return new BlobReference(container.Name, name);
    }

    /// <summary>Keeps a rejected inline message's body (at most 64 KiB) as <c>&lt;messageId&gt;</c> in the rejected container.</summary>
    public async Task<BlobReference> WriteRejectedBodyAsync(SigningQueueMessage message, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        var container = await _rejected.GetAsync(cancellationToken).ConfigureAwait(false);
        var blob = container.GetBlockBlobReference(message.Id);
        blob.Properties.ContentType = message.DecodeError is null ? "application/json" : "text/plain";
        using var body = message.OpenBody();
        await blob.UploadFromStreamAsync(body, body.Length, null, null, null, cancellationToken).ConfigureAwait(false);
        return new BlobReference(container.Name, message.Id);
    }

    /// <summary>Creates a container once per process, on first use; a failed attempt is retried on the next use.</summary>
    private sealed class ContainerInitializer
    {
        private readonly Func<CloudBlobContainer> _factory;
        private readonly SemaphoreSlim _gate = new(1, 1);
        private CloudBlobContainer? _ready;

        public ContainerInitializer(Func<CloudBlobContainer> factory)
        {
            _factory = factory;
        }

        public async ValueTask<CloudBlobContainer> GetAsync(CancellationToken cancellationToken)
        {
            if (Volatile.Read(ref _ready) is { } ready)
            {
                return ready;
            }

            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                if (_ready is null)
                {
                    var container = _factory();
                    await container.CreateIfNotExistsAsync(BlobContainerPublicAccessType.Off, null, null, cancellationToken).ConfigureAwait(false);
                    Volatile.Write(ref _ready, container);
                }

                return _ready!;
            }
            finally
            {
                _gate.Release();
            }
        }
    }
}
