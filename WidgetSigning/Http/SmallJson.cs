using System.Globalization;
using Microsoft.AspNetCore.Http;
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
}
