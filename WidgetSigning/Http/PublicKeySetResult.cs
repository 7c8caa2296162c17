using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>A key set's 200 (or 304 when the client holds it already), with its validator and cache lifetime.</summary>
internal sealed class PublicKeySetResult(byte[] body, string etag, string cacheControl, bool notModified) : IActionResult
{
    /// <summary>The media type of a JWK Set (RFC 7517 §8.5.1).</summary>
    public const string ContentType = "application/jwk-set+json";

    /// <inheritdoc />
    public async Task ExecuteResultAsync(ActionContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var response = context.HttpContext.Response;
        response.Headers.ETag = etag;
        response.Headers.CacheControl = cacheControl;
        if (notModified)
        {
            response.StatusCode = StatusCodes.Status304NotModified;
            return;
        }

        response.StatusCode = StatusCodes.Status200OK;
        response.ContentType = ContentType;
        response.ContentLength = body.Length;
        try
        {
            await response.Body.WriteAsync(body, context.HttpContext.RequestAborted).ConfigureAwait(false);
        }
        catch (Exception ex) when (ResponseWrite.IsClientGone(ex, context.HttpContext.RequestAborted))
        {
            // The client left while the answer was written.
        }
    }
}
