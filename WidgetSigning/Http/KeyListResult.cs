using WidgetSigning.Keys;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>
/// The 200 response of <c>GET /api/keys</c>:
/// <c>{"keys":[{"keyId":…,"state":"current|staged|retiring","notBefore":…,"expiresOn":…,"createdOn":…}]}</c>.
/// Ids, states and times only: key material never reaches this type.
/// </summary>
public sealed class KeyListResult : IActionResult
{
    /// <summary>Creates the result.</summary>
    public KeyListResult(IReadOnlyList<KeyDescription> keys) => Keys = keys;

    /// <summary>The keys described.</summary>
    public IReadOnlyList<KeyDescription> Keys { get; }

    /// <inheritdoc />
    public Task ExecuteResultAsync(ActionContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var response = context.HttpContext.Response;
        response.Headers.CacheControl = "no-store";
        return SmallJson.WriteAsync(response, StatusCodes.Status200OK, "application/json; charset=utf-8", json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("keys");
            json.WriteStartArray();
            foreach (var key in Keys)
            {
                json.WriteStartObject();
                json.WritePropertyName("keyId");
                json.WriteValue(key.KeyId);
                json.WritePropertyName("state");
                json.WriteValue(StandardWebhooks.StateName(key.State));
                json.WritePropertyName("notBefore");
                json.WriteValue(key.NotBefore?.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", System.Globalization.CultureInfo.InvariantCulture));
                json.WritePropertyName("expiresOn");
                json.WriteValue(key.ExpiresOn?.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", System.Globalization.CultureInfo.InvariantCulture));
                json.WritePropertyName("createdOn");
                json.WriteValue(key.CreatedOn?.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", System.Globalization.CultureInfo.InvariantCulture));
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }, context.HttpContext.RequestAborted);
    }
}
