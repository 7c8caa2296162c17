using WidgetSigning.Keys;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>
/// <c>GET /api/keys</c> without <c>?receiver=</c>: one page of receivers, each with its keys' states (never material) as
/// this instance holds them (null when it has not loaded the receiver), and the token of the next page.
/// </summary>
internal sealed class ReceiverKeyList : IActionResult
{
    /// <summary>Creates the result.</summary>
    public ReceiverKeyList(IReadOnlyList<Entry> receivers, string? nextPageToken)
    {
        Receivers = receivers;
        NextPageToken = nextPageToken;
    }

    /// <summary>The receivers on this page.</summary>
    public IReadOnlyList<Entry> Receivers { get; }

    /// <summary>Where the next page starts; null on the last page.</summary>
    public string? NextPageToken { get; }

    /// <inheritdoc />
    public Task ExecuteResultAsync(ActionContext context)
    {
        return SmallJson.WriteNoStoreAsync(context, json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("receivers");
            json.WriteStartArray();
            foreach (var entry in Receivers)
            {
                json.WriteStartObject();
                json.WritePropertyName("receiver");
                json.WriteValue(entry.Receiver.Value);
                if (entry.Keys is null)
                {
                    json.WritePropertyName("keys");
                    json.WriteNull();
                }
                else
                {
                    KeyListResult.WriteKeys(json, entry.Keys);
                }

                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WritePropertyName("nextPageToken");
            json.WriteValue(NextPageToken);
            json.WriteEndObject();
        });
    }

    /// <summary>One receiver and its keys as this instance holds them.</summary>
    /// <param name="Receiver">The receiver.</param>
    /// <param name="Keys">Its keys' ids, states and windows; null when this instance has not loaded the receiver.</param>
    public sealed record Entry(ReceiverId Receiver, IReadOnlyList<KeyDescription>? Keys);
}
