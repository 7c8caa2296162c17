using System.Runtime.InteropServices;

namespace WidgetSigning.Queues;

/// <summary>
/// One input message as the signing core sees it: the decoded body (at most 64 KiB, so never on the large object
/// heap) and the queue's metadata. Host-independent: <see cref="QueueMessageDecoder"/> builds it from the queue's
/// text; an isolated-worker function would build the same thing.
/// </summary>
public sealed class SigningQueueMessage
{
    /// <summary>Creates a message whose body decoded cleanly.</summary>
    public SigningQueueMessage(string id, int dequeueCount, DateTimeOffset? insertionTime, ReadOnlyMemory<byte> body)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        Id = id;
        DequeueCount = dequeueCount;
        InsertionTime = insertionTime;
        Body = body;
    }

    /// <summary>Creates a message whose text could not be decoded; it is rejected with <paramref name="decodeError"/>.</summary>
    public SigningQueueMessage(string id, int dequeueCount, DateTimeOffset? insertionTime, string decodeError, ReadOnlyMemory<byte> rawText)
        : this(id, dequeueCount, insertionTime, rawText)
    {
        DecodeError = decodeError;
    }

    /// <summary>The queue's message id: consumers de-duplicate on it (delivery is at least once).</summary>
    public string Id { get; }

    /// <summary>How many times the queue has handed this message out, this time included.</summary>
    public int DequeueCount { get; }

    /// <summary>When the message was enqueued.</summary>
    public DateTimeOffset? InsertionTime { get; }

    /// <summary>The decoded body (UTF-8 JSON), or the raw message text when <see cref="DecodeError"/> is set.</summary>
    public ReadOnlyMemory<byte> Body { get; }

    /// <summary>Why the message text could not be decoded (it is not base64); null when it could.</summary>
    public string? DecodeError { get; }

    /// <summary>
    /// Set by the in-process adapter when the run's outcome is <see cref="QueueOutcome.Released"/> (a WebJobs function
    /// hands its listener nothing else): the trigger makes it visible again after this delay, counts no failure and never
    /// poisons it for that. Null otherwise.
    /// </summary>
    public TimeSpan? ReleasedFor { get; private set; }

    /// <summary>Marks the message as released (see <see cref="ReleasedFor"/>).</summary>
    public void Release(TimeSpan retryAfter)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(retryAfter, TimeSpan.Zero);
        ReleasedFor = retryAfter;
    }

    /// <summary>A new read-only stream over <see cref="Body"/>, without copying it; readers need nothing but <see cref="Stream"/>.</summary>
    /// <exception cref="InvalidOperationException">The body is not backed by an array (the decoder always makes one that is).</exception>
    public MemoryStream OpenBody() => MemoryMarshal.TryGetArray(Body, out var segment)
        ? new MemoryStream(segment.Array!, segment.Offset, segment.Count, writable: false)
        : throw new InvalidOperationException("The message body must be backed by an array.");
}
