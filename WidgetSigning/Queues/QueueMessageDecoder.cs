using System.Text;

namespace WidgetSigning.Queues;

/// <summary>
/// Turns a queue message's text into a <see cref="SigningQueueMessage"/>. Messages are base64 of the UTF-8 JSON (what
/// producers of the Functions storage extension send, and what this service has always accepted); text that is not
/// base64 becomes a message with a <see cref="SigningQueueMessage.DecodeError"/> carrying the exact text, so it is
/// rejected with its reason (and kept) instead of retried into poison.
/// </summary>
public static class QueueMessageDecoder
{
    /// <summary>The reason given for text that is not base64.</summary>
    public const string NotBase64Reason =
        "The message text is not valid base64. Producers must send base64 of the UTF-8 JSON (as for the Functions storage extension).";

    /// <summary>Decodes the text of one message.</summary>
    public static SigningQueueMessage Decode(string id, long dequeueCount, DateTimeOffset? insertionTime, string text)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentNullException.ThrowIfNull(text);
        var count = (int)Math.Min(dequeueCount, int.MaxValue);

        // A queue message is at most 64 KiB, so this buffer stays below the large-object threshold.
        var buffer = new byte[(text.Length + 3) / 4 * 3];
        if (Convert.TryFromBase64String(text, buffer, out var written))
        {
            return new SigningQueueMessage(id, count, insertionTime, buffer.AsMemory(0, written));
        }

        return new SigningQueueMessage(id, count, insertionTime, NotBase64Reason, Encoding.UTF8.GetBytes(text));
    }

    /// <summary>The text of an outgoing message: base64 of the UTF-8 JSON, as inputs are.</summary>
    public static string Encode(string json)
    {
        ArgumentNullException.ThrowIfNull(json);
        return Convert.ToBase64String(Encoding.UTF8.GetBytes(json));
    }
}
