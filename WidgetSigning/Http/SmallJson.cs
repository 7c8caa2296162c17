using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Newtonsoft.Json;

namespace WidgetSigning.Http;

/// <summary>Writes the service's small JSON responses (a few hundred bytes) with Newtonsoft's writer.</summary>
internal static class SmallJson
{
    public static async Task WriteAsync(HttpResponse response, int statusCode, string contentType, Action<JsonWriter> write, CancellationToken cancellationToken)
    {
        using var text = new StringWriter(CultureInfo.InvariantCulture);
        using (var json = new JsonTextWriter(text) { Formatting = Formatting.None, CloseOutput = false })
        {
            write(json);
        }

        response.StatusCode = statusCode;
        response.ContentType = contentType;
        try
        {
            await response.WriteAsync(text.ToString(), cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ex) when (ResponseWrite.IsClientGone(ex, cancellationToken))
        {
            // The client left while the answer was written; there is no one to tell, and it is not a server fault.
        }
    }

    /// <summary>A 200 JSON answer no cache may keep: key lists and verification results describe keys that rotate.</summary>
    public static Task WriteNoStoreAsync(ActionContext context, Action<JsonWriter> write)
    {
        ArgumentNullException.ThrowIfNull(context);
        var response = context.HttpContext.Response;
        response.Headers.CacheControl = "no-store";
        return WriteAsync(response, StatusCodes.Status200OK, "application/json; charset=utf-8", write, context.HttpContext.RequestAborted);
    }
}
