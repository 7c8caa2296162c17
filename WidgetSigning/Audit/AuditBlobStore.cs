using System.Collections.Concurrent;
using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using Azure.Storage.Blobs.Specialized;
using WidgetSigning.Storage;

namespace WidgetSigning.Audit;

/// <summary>
/// The trail's blob operations, each create-once or append-at-a-position, so that nothing this process writes can
/// overwrite anything: append blobs for streams, block blobs written once for anchors and keys. The container is
/// deployed by infra/ (with its immutability policy); only where it is missing (Azurite) is it created here.
/// </summary>
internal sealed class AuditBlobStore
{
    private const string LinesContentType = "application/x-ndjson";
    private const string JsonContentType = "application/json";

    // A client per stream, kept: a client parses its blob's URI when it is made, and a stream takes appends for an hour.
    private const int MaxStreamClients = 64;

    private readonly BlobContainerClient _container;
    private readonly ConcurrentDictionary<string, AppendBlobClient> _streams = new(StringComparer.Ordinal);

    /// <summary>A store over <paramref name="container"/>.</summary>
    public AuditBlobStore(BlobContainerClient container) => _container = container;

    /// <summary>
    /// Creates the empty append blob <paramref name="name"/>. One that exists and is empty is taken as this call's own
    /// earlier attempt, whose answer was lost; one with content is never reused.
    /// </summary>
    public Task CreateStreamAsync(string name, CancellationToken cancellationToken) => WithContainerAsync(async () =>
    {
        try
        {
            using var expected = ExpectedAnswers.Expect(BlobErrorCode.ContainerNotFound.ToString(), BlobErrorCode.BlobAlreadyExists.ToString());
            await _container.GetAppendBlobClient(name).CreateAsync(
                new AppendBlobCreateOptions
                {
                    HttpHeaders = new BlobHttpHeaders { ContentType = LinesContentType },
                    Conditions = new AppendBlobRequestConditions { IfNoneMatch = ETag.All },
                },
                cancellationToken).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (ex.Status is 403 or 409 or 412)
        {
            if (await LengthAsync(name, cancellationToken).ConfigureAwait(false) != 0)
            {
                throw;
            }
        }
    }, cancellationToken);

    /// <summary>The length of blob <paramref name="name"/> now.</summary>
    public async Task<long> LengthAsync(string name, CancellationToken cancellationToken) =>
        (await _container.GetBlobClient(name).GetPropertiesAsync(cancellationToken: cancellationToken).ConfigureAwait(false)).Value.ContentLength;

    /// <summary>Appends <paramref name="block"/> at <paramref name="offset"/>, and only there: a write that lands elsewhere fails.</summary>
    public async Task AppendAsync(string name, ReadOnlyMemory<byte> block, long offset, CancellationToken cancellationToken)
    {
        using var content = new BinaryData(block).ToStream();
        if (!_streams.TryGetValue(name, out var stream))
        {
            if (_streams.Count >= MaxStreamClients)
            {
                _streams.Clear();
            }

            stream = _streams.GetOrAdd(name, _container.GetAppendBlobClient(name));
        }

        await stream.AppendBlockAsync(
            content,
            new AppendBlobAppendBlockOptions { Conditions = new AppendBlobRequestConditions { IfAppendPositionEqual = offset } },
            cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Writes <paramref name="content"/> to <paramref name="name"/> unless the blob exists. True when it was written, or
    /// already held exactly this content (an earlier attempt that landed although its answer was lost).
    /// </summary>
    public Task<bool> CreateOnceAsync(string name, byte[] content, CancellationToken cancellationToken) => WithContainerAsync(async () =>
    {
        var blob = _container.GetBlobClient(name);
        try
        {
            using var expected = ExpectedAnswers.Expect(BlobErrorCode.ContainerNotFound.ToString(), BlobErrorCode.BlobAlreadyExists.ToString());
            await blob.UploadAsync(
                new BinaryData(content),
                new BlobUploadOptions
                {
                    HttpHeaders = new BlobHttpHeaders { ContentType = JsonContentType },
                    Conditions = new BlobRequestConditions { IfNoneMatch = ETag.All },
                },
                cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (RequestFailedException ex) when (ex.Status is 403 or 409 or 412)
        {
            var existing = await blob.DownloadContentAsync(cancellationToken).ConfigureAwait(false);
            return existing.Value.Content.ToMemory().Span.SequenceEqual(content);
        }
    }, cancellationToken);

    private async Task<T> WithContainerAsync<T>(Func<Task<T>> write, CancellationToken cancellationToken)
    {
        try
        {
            return await write().ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (ex.ErrorCode == BlobErrorCode.ContainerNotFound)
        {
            using (ExpectedAnswers.Expect(BlobErrorCode.ContainerAlreadyExists.ToString()))
            {
                await _container.CreateIfNotExistsAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
            }

            return await write().ConfigureAwait(false);
        }
    }

    private Task WithContainerAsync(Func<Task> write, CancellationToken cancellationToken) => WithContainerAsync(
        async () =>
        {
            await write().ConfigureAwait(false);
            return true;
        },
        cancellationToken);
}
