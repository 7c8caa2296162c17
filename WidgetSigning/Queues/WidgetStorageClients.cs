using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using Microsoft.Extensions.Options;

using WidgetSigning.Storage;

namespace WidgetSigning.Queues;

/// <summary>
/// The queues and containers of queue signing (<see cref="QueueNames"/>) on the one storage connection
/// <see cref="QueueOptions.ConnectionSetting"/>; the clients are thread-safe and made once, on first use.
/// </summary>
public sealed class WidgetStorageClients
{
    private readonly Lazy<QueueServiceClient> _queues;
    private readonly Lazy<BlobServiceClient> _blobs;

    /// <summary>Creates the clients' holder (nothing connects until a client is used).</summary>
    public WidgetStorageClients(WidgetStorageClientFactory factory, IOptions<QueueNames> names)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(names);
        Names = names.Value;
        _queues = new Lazy<QueueServiceClient>(() => factory.CreateQueueServiceClient(QueueOptions.ConnectionSetting));
        _blobs = new Lazy<BlobServiceClient>(() => factory.CreateBlobServiceClient(QueueOptions.ConnectionSetting));
    }

    /// <summary>The configured names.</summary>
    public QueueNames Names { get; }

    /// <summary>The queue service.</summary>
    public QueueServiceClient QueueService => _queues.Value;

    /// <summary>The blob service.</summary>
    public BlobServiceClient BlobService => _blobs.Value;

    /// <summary>Where signatures go.</summary>
    public QueueClient OutputQueue => QueueService.GetQueueClient(Names.WidgetOutputQueue);

    /// <summary>Where rejections go.</summary>
    public QueueClient RejectedQueue => QueueService.GetQueueClient(Names.WidgetRejectedQueue);

    /// <summary>The only container claim checks may point into.</summary>
    public BlobContainerClient ClaimsContainer => BlobService.GetBlobContainerClient(Names.WidgetClaimsContainer);

    /// <summary>Where canonical bytes too large to inline go.</summary>
    public BlobContainerClient CanonicalContainer => BlobService.GetBlobContainerClient(Names.WidgetCanonicalContainer);

    /// <summary>Where rejected inline bodies are kept.</summary>
    public BlobContainerClient RejectedContainer => BlobService.GetBlobContainerClient(Names.WidgetRejectedContainer);
}
