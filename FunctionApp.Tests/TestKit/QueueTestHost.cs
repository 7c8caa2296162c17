using Azure.Storage.Blobs;
using Azure.Storage.Queues;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A running queue app under test (<see cref="QueueFunctionHost"/> for the in-process app, the isolated tests' app) and
/// its own queues and containers, named from its prefix, so tests sharing one Azurite do not see each other's messages.
/// </summary>
public abstract class QueueTestHost(QueueTestResources resources)
{
    /// <summary>This host's own queues and containers.</summary>
    public QueueTestResources Resources { get; } = resources;

    public QueueClient Input => Resources.Input;

    public QueueClient Output => Resources.Output;

    public QueueClient Rejected => Resources.Rejected;

    public QueueClient Poison => Resources.Poison;

    public BlobContainerClient Claims => Resources.Claims;

    public BlobContainerClient Canonical => Resources.Canonical;

    public BlobContainerClient RejectedBodies => Resources.RejectedBodies;
}
