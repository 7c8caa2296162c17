using WidgetSigning.Keys;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>
/// The 200 response of <c>GET /api/keys</c>:
/// <c>{"keys":[{"keyId":…,"state":"current|staged|retiring","notBefore":…,"expiresOn":…,"createdOn":…}]}</c>.
/// Ids, states and times only: key material never reaches this type.
/// </summary>
internal sealed class KeyListResult : IActionResult
{
    /// <summary>Creates the result.</summary>
    public KeyListResult(ReceiverId receiver, IReadOnlyList<KeyDescription> keys)
    {
        Receiver = receiver;
        Keys = keys;
    }

    /// <summary>The receiver whose keys these are.</summary>
    public ReceiverId Receiver { get; }

    /// <summary>The keys described.</summary>
    public IReadOnlyList<KeyDescription> Keys { get; }

    /// <inheritdoc />
    public Task ExecuteResultAsync(ActionContext context)
    {
        return SmallJson.WriteNoStoreAsync(context, json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("receiver");
            json.WriteValue(Receiver.Value);
            WriteKeys(json, Keys);
            json.WriteEndObject();
        });
    }

    /// <summary>Writes <c>"keys": [...]</c>: each key's id, state and window.</summary>
    internal static void WriteKeys(Newtonsoft.Json.JsonWriter json, IReadOnlyList<KeyDescription> keys)
    {
        json.WritePropertyName("keys");
        json.WriteStartArray();
        foreach (var key in keys)
        {
            json.WriteStartObject();
            json.WritePropertyName("keyId");
            json.WriteValue(key.KeyId);
            json.WritePropertyName("state");
            json.WriteValue(StandardWebhooks.StateName(key.State));
            json.WritePropertyName("notBefore");
            json.WriteValue(Time(key.NotBefore));
            json.WritePropertyName("expiresOn");
            json.WriteValue(Time(key.ExpiresOn));
            json.WritePropertyName("createdOn");
            json.WriteValue(Time(key.CreatedOn));
            json.WriteEndObject();
        }

        json.WriteEndArray();
    }

    private static string? Time(DateTimeOffset? value) =>
        value?.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", System.Globalization.CultureInfo.InvariantCulture);
}
