using System.Reflection;
using System.Text;
using Microsoft.Azure.Storage.Queue;

namespace FunctionApp.Queues;

/// <summary>
/// Turns the message the storage extension hands over into a <see cref="SigningQueueMessage"/>. Messages are base64
/// of the UTF-8 JSON (the extension 4.x has no other encoding); text that is not base64 becomes a message with a
/// <see cref="SigningQueueMessage.DecodeError"/>, so it is rejected with its reason instead of retried into poison.
/// </summary>
public static class QueueMessageDecoder
{
    /// <summary>The reason given for text that is not base64.</summary>
    public const string NotBase64Reason =
        "The message text is not valid base64. Producers must send base64 of the UTF-8 JSON (the Functions storage extension 4.x decodes every message as base64).";

    // The SDK keeps the text as received in a non-public property and offers only its decoded forms, which throw
    // for text that is not base64; this reads it so the producer's exact text can be kept (nothing lost).
    // Microsoft.Azure.Storage.Queue 11.2.3 is the last release of that SDK, so the property cannot move under us;
    // a test asserts the kept text byte for byte.
    private static readonly PropertyInfo? RawStringProperty =
        typeof(CloudQueueMessage).GetProperty("RawString", BindingFlags.Instance | BindingFlags.NonPublic);

    /// <summary>Decodes <paramref name="message"/>.</summary>
    /// <exception cref="InvalidOperationException">The text is not base64 and the SDK no longer exposes it (so it is retried, never dropped).</exception>
    public static SigningQueueMessage Decode(CloudQueueMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        byte[] body;
        try
        {
            // A queue message is at most 64 KiB, so this stays below the large-object threshold.
            body = message.AsBytes ?? [];
        }
        catch (FormatException)
        {
            var raw = RawStringProperty?.GetValue(message) as string
                ?? throw new InvalidOperationException("The message is not valid base64 and its text could not be read to keep it.");
            return new SigningQueueMessage(message.Id, message.DequeueCount, message.InsertionTime, NotBase64Reason, Encoding.UTF8.GetBytes(raw));
        }

        return new SigningQueueMessage(message.Id, message.DequeueCount, message.InsertionTime, body);
    }
}
