using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// One test's own queues and containers, all named from one prefix so tests sharing an Azurite never see each other's
/// messages: the app settings that point the app at them, clients for them, and their creation. Both queue hosts use it
/// (the in-process app in <see cref="QueueFunctionHost"/>, the isolated app in WorkerHost).
/// </summary>
public sealed class QueueTestResources
{
    /// <summary>Clients for the names <paramref name="prefix"/> gives.</summary>
    public QueueTestResources(QueueServiceClient queues, BlobServiceClient blobs, string prefix)
    {
        ArgumentNullException.ThrowIfNull(queues);
        ArgumentNullException.ThrowIfNull(blobs);
        Input = queues.GetQueueClient(prefix + "-in");
        Output = queues.GetQueueClient(prefix + "-out");
        Rejected = queues.GetQueueClient(prefix + "-rej");
        Poison = queues.GetQueueClient(prefix + "-in-poison");
        Claims = blobs.GetBlobContainerClient(prefix + "-claims");
        Canonical = blobs.GetBlobContainerClient(prefix + "-canonical");
        RejectedBodies = blobs.GetBlobContainerClient(prefix + "-rejected");
    }

    public QueueClient Input { get; }

    public QueueClient Output { get; }

    public QueueClient Rejected { get; }

    public QueueClient Poison { get; }

    public BlobContainerClient Claims { get; }

    public BlobContainerClient Canonical { get; }

    public BlobContainerClient RejectedBodies { get; }

    /// <summary>The app settings that name the queues and containers <paramref name="prefix"/> gives.</summary>
    public static IEnumerable<KeyValuePair<string, string>> Settings(string prefix) =>
    [
        new("WidgetInputQueue", prefix + "-in"),
        new("WidgetOutputQueue", prefix + "-out"),
        new("WidgetRejectedQueue", prefix + "-rej"),
        new("WidgetClaimsContainer", prefix + "-claims"),
        new("WidgetCanonicalContainer", prefix + "-canonical"),
        new("WidgetRejectedContainer", prefix + "-rejected"),
    ];

    /// <summary>A claim check message's JSON naming <paramref name="blobName"/> in <paramref name="container"/>.</summary>
    public static byte[] ClaimCheckJson(string container, string blobName) =>
        Encoding.UTF8.GetBytes(new JObject { ["claimCheck"] = new JObject { ["container"] = container, ["blob"] = blobName } }.ToString(Newtonsoft.Json.Formatting.None));

    /// <summary>Creates what a test writes to before the app runs: the claims container and the four queues.</summary>
    public async Task CreateAsync()
    {
        await Claims.CreateIfNotExistsAsync();
        await Input.CreateIfNotExistsAsync();
        await Output.CreateIfNotExistsAsync();
        await Rejected.CreateIfNotExistsAsync();
        await Poison.CreateIfNotExistsAsync();
    }
}
