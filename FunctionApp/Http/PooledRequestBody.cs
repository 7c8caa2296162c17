using FunctionApp.Primitives;
using Microsoft.AspNetCore.Http;
using Microsoft.IO;
using Microsoft.Net.Http.Headers;

namespace FunctionApp.Http;

/// <summary>
/// Reads a request body into a pooled stream, asynchronously and straight into the pool's blocks (the
/// stream is an <c>IBufferWriter&lt;byte&gt;</c>), enforcing the size limit as it goes. The body is never
/// held in one array, so a 1 MB envelope does not touch the large object heap.
/// </summary>
public static class PooledRequestBody
{
    /// <summary>Throws <see cref="UnsupportedContentTypeException"/> unless the request declares UTF-8 JSON.</summary>
    public static void EnsureJsonContentType(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (!MediaTypeHeaderValue.TryParse(request.ContentType, out var mediaType))
        {
            throw new UnsupportedContentTypeException(string.IsNullOrEmpty(request.ContentType)
                ? "The request has no Content-Type; send application/json."
                : "The Content-Type header is malformed; send application/json.");
        }

        var isJson = mediaType.MediaType.Equals("application/json", StringComparison.OrdinalIgnoreCase) ||
                     mediaType.Suffix.Equals("json", StringComparison.OrdinalIgnoreCase);
        if (!isJson)
        {
            throw new UnsupportedContentTypeException($"Content-Type '{EchoText.Truncate(mediaType.MediaType.ToString())}' is not supported; send application/json.");
        }

        if (mediaType.Charset.HasValue && !mediaType.Charset.Equals("utf-8", StringComparison.OrdinalIgnoreCase))
        {
            throw new UnsupportedContentTypeException($"Charset '{EchoText.Truncate(mediaType.Charset.ToString())}' is not supported; JSON is UTF-8.");
        }
    }

    /// <summary>Reads the whole body into a pooled stream positioned at 0; the caller disposes it.</summary>
    /// <exception cref="RequestBodyTooLargeException">The body exceeds <paramref name="maxBytes"/>.</exception>
    /// <exception cref="ClientClosedRequestException">The connection failed while the body was read.</exception>
    /// <exception cref="BadHttpRequestException">The server refused the body (its own size limit, bad framing).</exception>
    public static async Task<RecyclableMemoryStream> ReadAsync(
        HttpRequest request, RecyclableMemoryStreamManager streams, long maxBytes, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(streams);
        if (request.ContentLength > maxBytes)
        {
            // Refuse before reading a byte.
            throw new RequestBodyTooLargeException(maxBytes);
        }

        var body = streams.GetStream("request-body");
        try
        {
            while (true)
            {
                // No size hint: the rest of the current block. A hint larger than that would make the stream
                // lend a separate temporary buffer and copy it in on Advance.
                var memory = body.GetMemory();
                int read;
                try
                {
                    read = await request.Body.ReadAsync(memory, cancellationToken).ConfigureAwait(false);
                }
                catch (IOException ex) when (ex is not BadHttpRequestException)
                {
                    // The body comes from the client: a transport failure here is the client going away, not a server fault.
                    throw new ClientClosedRequestException("The connection closed while the request body was read.", ex);
                }

                if (read == 0)
                {
                    break;
                }

                body.Advance(read);
                if (body.Length > maxBytes)
                {
                    throw new RequestBodyTooLargeException(maxBytes);
                }
            }

            body.Position = 0;
            return body;
        }
        catch
        {
            await body.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }
}
