using System.Collections.Concurrent;
using Microsoft.WindowsAzure.Storage.Queue;

namespace FunctionApp.Queues;

/// <summary>Sends the small output and rejected messages, creating each queue once per process.</summary>
public sealed class QueueSender
{
    private readonly QueueStorage _storage;
    private readonly ConcurrentDictionary<(string Queue, QueueMessageEncoding Encoding), CloudQueue> _ready = new();

    /// <summary>Creates the sender.</summary>
    public QueueSender(QueueStorage storage)
    {
        _storage = storage;
    }

    /// <summary>Adds <paramref name="text"/> to <paramref name="queueName"/>, base64-encoded or not as <paramref name="encoding"/> says.</summary>
    public async Task SendAsync(string queueName, string text, QueueMessageEncoding encoding, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(queueName);
        ArgumentNullException.ThrowIfNull(text);
        if (!_ready.TryGetValue((queueName, encoding), out var queue))
        {
            queue = _storage.Queue(queueName);
            queue.EncodeMessage = encoding == QueueMessageEncoding.Base64;

            // Two first sends may both create: harmless, and cheaper than a lock on every send.
            await queue.CreateIfNotExistsAsync(null, null, cancellationToken).ConfigureAwait(false);
            _ready[(queueName, encoding)] = queue;
        }

        await queue.AddMessageAsync(new CloudQueueMessage(text), null, null, null, null, cancellationToken).ConfigureAwait(false);
    }
}
