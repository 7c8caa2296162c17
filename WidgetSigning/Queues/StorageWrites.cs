using System.Net;
using Azure;
using Azure.Storage.Queues;

namespace WidgetSigning.Queues;

/// <summary>
/// Queue sends that create their queue only when Storage answers that it is missing (blob writes do the same in
/// <see cref="QueueBlobStore"/>). In Azure, infra creates every queue and container and the app's roles are scoped to
/// each one (they may not allow creating it); locally, Azurite starts empty. Creating up front would need the broader
/// right; creating on 404 needs it only where it is free.
/// </summary>
public static class StorageWrites
{
    /// <summary>Sends <paramref name="text"/> to <paramref name="queue"/>, creating the queue first only if it does not exist.</summary>
    public static async Task SendAsync(QueueClient queue, string text, CancellationToken cancellationToken)
    {
        try
        {
            await queue.SendMessageAsync(text, cancellationToken).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (ex.Status == (int)HttpStatusCode.NotFound)
        {
            await queue.CreateIfNotExistsAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
            await queue.SendMessageAsync(text, cancellationToken).ConfigureAwait(false);
        }
    }
}
