using System.Globalization;
using WidgetSigning.Primitives;

namespace WidgetSigning.Queues;

/// <summary>
/// What the rejected queue receives for input that can never be signed: the reason, the JSON path and the
/// original message id. The original body stays readable: a claim check's blob is left where it is, an inline
/// body is copied to <see cref="Body"/>.
/// </summary>
internal sealed class RejectedMessage
{
    /// <summary>The longest reason kept, in characters: with the other members the message stays far below the queue's 64 KiB.</summary>
    public const int MaxReasonLength = 2048;

    /// <summary>The longest JSON path kept, in characters.</summary>
    public const int MaxJsonPathLength = 512;

    /// <summary>The input message's id.</summary>
    public required string MessageId { get; init; }

    /// <summary>The input message's dequeue count.</summary>
    public required int DequeueCount { get; init; }

    /// <summary>When the input message was enqueued.</summary>
    public DateTimeOffset? InsertionTime { get; init; }

    /// <summary>What is wrong, in words safe to show the producer.</summary>
    public required string Reason { get; init; }

    /// <summary>The JSON path of the offending value (<c>$</c> for the whole message or envelope).</summary>
    public required string JsonPath { get; init; }

    /// <summary>The claim check the envelope was to come from, if any (the blob is left in place).</summary>
    public BlobReference? ClaimCheck { get; init; }

    /// <summary>A copy of an inline message's body, if one was kept.</summary>
    public BlobReference? Body { get; init; }

    /// <summary>The message's JSON.</summary>
    public string ToJson()
    {
        return QueueJson.Write(json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("messageId");
            json.WriteValue(MessageId);
            json.WritePropertyName("dequeueCount");
            json.WriteValue(DequeueCount);
            if (InsertionTime is { } inserted)
            {
                json.WritePropertyName("insertionTime");
                json.WriteValue(inserted.UtcDateTime.ToString("O", CultureInfo.InvariantCulture));
            }

            json.WritePropertyName("reason");
            // Both may quote client text (member names, blob names): bounded whatever the input, so the rejected
            // message always fits a queue message.
            json.WriteValue(EchoText.Of(Reason, MaxReasonLength));
            json.WritePropertyName("jsonPath");
            json.WriteValue(EchoText.Of(JsonPath, MaxJsonPathLength));
            QueueJson.WriteBlob(json, "claimCheck", ClaimCheck);
            QueueJson.WriteBlob(json, "body", Body);
            json.WriteEndObject();
        });
    }
}
