using System.Diagnostics;
using System.IO.Pipelines;
using System.Globalization;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.IO;
using Microsoft.Net.Http.Headers;

namespace WidgetSigning.Http;

/// <summary>
/// Reads a request body into a pooled stream, asynchronously and straight into the pool's blocks (the
/// stream is an <c>IBufferWriter&lt;byte&gt;</c>), enforcing the size limit as it goes. The body is never
/// held in one array, so a 1 MB envelope does not touch the large object heap.
/// </summary>
internal static class PooledRequestBody
{
    // Kestrel's message for RequestRejectionReason.UnexpectedEndOfRequestContent (CoreStrings), its only public mark.
    private const string UnexpectedEndOfContent = "Unexpected end of request content";

    /// <summary>
    /// The most envelope bytes the host's Kestrel may have counted against its own limit but not yet handed to the app
    /// when it refuses a chunked body: its request buffer (<c>MaxRequestBufferSize</c>, 1 MiB by default, which neither the
    /// Functions host nor the local hosts change) plus a receive. Kestrel parses one buffered read at a time and stops in
    /// the middle of it, so up to this much of the data it counted never reaches the app.
    /// </summary>
    internal const long HostUnreadBytes = (1024 + 64) * 1024;

    /// <summary>
    /// Throws a 415 (<see cref="Problems.UnsupportedMediaType"/>) unless the request declares UTF-8 JSON (the charset bare or
    /// quoted, as RFC 9110 §5.6.6 allows) with no content coding other than <c>identity</c>.
    /// </summary>
    public static void EnsureJsonContentType(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        EnsureChunkedTransferCodingOnly(request);
        EnsureIdentityContentEncoding(request);
        if (!MediaTypeHeaderValue.TryParse(request.ContentType, out var mediaType))
        {
            throw Problems.UnsupportedMediaType(string.IsNullOrEmpty(request.ContentType)
                ? "The request has no Content-Type; send application/json."
                : "The Content-Type header is malformed; send application/json.");
        }

        var isJson = mediaType.MediaType.Equals("application/json", StringComparison.OrdinalIgnoreCase) ||
                     mediaType.Suffix.Equals("json", StringComparison.OrdinalIgnoreCase);
        if (!isJson)
        {
            throw Problems.UnsupportedMediaType($"Content-Type '{EchoText.Of(mediaType.MediaType.ToString())}' is not supported; send application/json.");
        }

        // charset="utf-8" is the same parameter value as charset=utf-8 (a quoted-string); MediaTypeHeaderValue keeps the quotes.
        var charset = HeaderUtilities.RemoveQuotes(mediaType.Charset);
        if (mediaType.Charset.HasValue && !charset.Equals("utf-8", StringComparison.OrdinalIgnoreCase))
        {
            throw Problems.UnsupportedMediaType($"Charset '{EchoText.Of(mediaType.Charset.ToString())}' is not supported; JSON is UTF-8.");
        }
    }

    /// <summary>
    /// Throws a 415 (<see cref="Problems.UnsupportedMediaType"/>) when the body carries a content coding other than
    /// <c>identity</c> (gzip, br, deflate, …): the service does not decompress, so such a body would otherwise be
    /// signed as its compressed bytes' text or refused as "not UTF-8". The 415 names the coding (RFC 9110 §15.5.16).
    /// </summary>
    public static void EnsureIdentityContentEncoding(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        foreach (var value in request.Headers.ContentEncoding)
        {
            foreach (var coding in (value ?? string.Empty).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                if (!coding.Equals("identity", StringComparison.OrdinalIgnoreCase))
                {
                    throw Problems.UnsupportedMediaType(
                        $"Content-Encoding '{EchoText.Of(coding)}' is not supported; send the JSON uncompressed (no Content-Encoding, or identity).");
                }
            }
        }
    }

    /// <summary>
    /// Throws a 415 (<see cref="Problems.UnsupportedMediaType"/>) when <c>Transfer-Encoding</c> names a transfer coding other
    /// than <c>chunked</c> (<c>gzip, chunked</c>, <c>deflate, chunked</c>, …). Kestrel takes the chunking off and hands
    /// on the rest as it came, so such a body would be signed as bytes the client meant to be decoded first. RFC 9112
    /// §6.1 suggests 501 for a transfer coding the server does not understand; this is the client's request, not a
    /// server fault, so it is the 415 a <c>Content-Encoding</c> gets, naming the coding. Only a server that passes the
    /// header on sees it: the Functions host's forwarder drops it (a hop-by-hop header) and re-frames the body.
    /// </summary>
    public static void EnsureChunkedTransferCodingOnly(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        foreach (var value in request.Headers.TransferEncoding)
        {
            foreach (var coding in (value ?? string.Empty).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                if (!coding.Equals("chunked", StringComparison.OrdinalIgnoreCase))
                {
                    throw Problems.UnsupportedMediaType(
                        $"Transfer-Encoding '{EchoText.Of(coding)}' is not supported; send the JSON uncompressed, with Content-Length or Transfer-Encoding: chunked alone.");
                }
            }
        }
    }

    /// <summary>Reads the whole body into a pooled stream positioned at 0; the caller disposes it.</summary>
    /// <exception cref="ProblemException">The body exceeds <paramref name="maxBytes"/> (413); the connection failed while the
    /// body was read (client closed); the host refused a chunked body whose framing, not its envelope, was too large (413).</exception>
    /// <exception cref="BadHttpRequestException">The server refused the body (its own size limit, bad framing).</exception>
    public static Task<RecyclableMemoryStream> ReadAsync(
        HttpRequest request, RecyclableMemoryStreamManager streams, long maxBytes, CancellationToken cancellationToken) =>
        ReadAsync(request, streams, maxBytes, null, null, cancellationToken);

    /// <summary>
    /// Reads the whole body into a pooled stream positioned at 0, charging its blocks to <paramref name="lease"/> and
    /// holding the client to <paramref name="rate"/>'s minimum data rate; the caller disposes the stream (and the lease).
    /// </summary>
    /// <exception cref="ProblemException">The body exceeds <paramref name="maxBytes"/> (413); it arrives more slowly than
    /// <paramref name="rate"/> allows (408); the memory budget had no room within its wait (503); the connection failed
    /// while the body was read (client closed); the host refused a chunked body whose framing, not its envelope, was too
    /// large (413).</exception>
    /// <exception cref="BadHttpRequestException">The server refused the body (its own size limit, bad framing).</exception>
    public static async Task<RecyclableMemoryStream> ReadAsync(
        HttpRequest request, RecyclableMemoryStreamManager streams, long maxBytes, EnvelopeBudgetLease? lease, HttpOptions? rate, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(streams);
        if (request.ContentLength > maxBytes)
        {
            // Refuse before reading a byte.
            throw TooLarge(maxBytes);
        }

        // Read through the body's PipeReader, not its Stream: a read the minimum data rate ends is cancelled with
        // CancelPendingRead and then advanced, which leaves the reader idle. A Stream read cancelled by its token (or a
        // cancelled pipe read not advanced) leaves Kestrel's body reader "reading", and Kestrel, which drains the rest
        // of the body after the answer, then logs an Error ("Reading is already in progress") for every slow client.
        var reader = request.BodyReader;
        var started = Stopwatch.GetTimestamp();
        using var slow = rate is null ? null : new CancellationTokenSource();
        using var slowRegistration = slow?.Token.UnsafeRegister(static state => ((PipeReader)state!).CancelPendingRead(), reader);
        var body = streams.GetStream("request-body");
        try
        {
            while (true)
            {
                if (slow is not null)
                {
                    // What is read so far buys the time for the next read: on average, the minimum rate after the grace period.
                    var left = rate!.TimeAllowedFor(body.Length) - Stopwatch.GetElapsedTime(started);
                    if (left <= TimeSpan.Zero)
                    {
                        throw TooSlow(rate, body.Length);
                    }

                    slow.CancelAfter(left);
                }

                ReadResult result;
                try
                {
                    result = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
                }
                catch (BadHttpRequestException ex) when (ex.StatusCode == StatusCodes.Status413PayloadTooLarge && request.ContentLength is null)
                {
                    throw ChunkedBodyRefused(request, body.Length, maxBytes, ex);
                }
                catch (IOException ex) when (ex is not BadHttpRequestException || ex.Message.StartsWith(UnexpectedEndOfContent, StringComparison.Ordinal))
                {
                    // The body comes from the client: a transport failure here, or Kestrel's word for a body that stopped
                    // short (the client, or isolated the host's aborted forward, went away mid-body), is a disconnect,
                    // not a server fault or a malformed request.
                    throw Problems.ClientClosedRequest("The connection closed while the request body was read.", ex);
                }

                var buffer = result.Buffer;
                if (result.IsCanceled)
                {
                    // Only the rate's timer cancels a pending read here; nothing is consumed.
                    reader.AdvanceTo(buffer.Start);
                    throw TooSlow(rate!, body.Length);
                }

                try
                {
                    foreach (var segment in buffer)
                    {
                        await CopyAsync(segment, body, lease, maxBytes, cancellationToken).ConfigureAwait(false);
                    }
                }
                finally
                {
                    reader.AdvanceTo(buffer.End);
                }

                if (result.IsCompleted)
                {
                    break;
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

    /// <summary>
    /// Copies <paramref name="segment"/> into the pool's blocks, each block charged to <paramref name="lease"/> before it
    /// is filled, and refuses the body as soon as it passes <paramref name="maxBytes"/>.
    /// </summary>
    private static async ValueTask CopyAsync(
        ReadOnlyMemory<byte> segment, RecyclableMemoryStream body, EnvelopeBudgetLease? lease, long maxBytes, CancellationToken cancellationToken)
    {
        while (!segment.IsEmpty)
        {
            // No size hint: the rest of the current block. A hint larger than that would make the stream lend a
            // separate temporary buffer and copy it in on Advance.
            var memory = body.GetMemory();
            if (lease is not null)
            {
                // Charged as blocks fill, never the announced Content-Length up front: a client that declares 16 MiB
                // and trickles holds only what it sent, so slow uploads cannot spend the budget others need.
                await lease.CoverAsync(body.Capacity64, cancellationToken).ConfigureAwait(false);
            }

            var count = Math.Min(memory.Length, segment.Length);
            segment.Span[..count].CopyTo(memory.Span);
            body.Advance(count);
            segment = segment[count..];
            if (body.Length > maxBytes)
            {
                throw TooLarge(maxBytes);
            }
        }
    }

    /// <summary>
    /// What the host's refusal of a chunked body at its own limit means. Kestrel counts the chunk-size lines, their line
    /// ends and chunk extensions against <c>MaxRequestBodySize</c> (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>), the envelope
    /// limit counts envelope bytes only, and the host's limit is set a little above the envelope limit for that framing.
    /// If even the envelope bytes the host may have counted without handing them over leave the envelope within
    /// <paramref name="maxBytes"/>, the framing alone passed the host's limit; otherwise the envelope may be over the
    /// limit, and the answer says both.
    /// </summary>
    private static Exception ChunkedBodyRefused(HttpRequest request, long received, long maxBytes, BadHttpRequestException refusal)
    {
        var hostLimit = request.HttpContext.Features.Get<IHttpMaxRequestBodySizeFeature>()?.MaxRequestBodySize;
        if (received + HostUnreadBytes <= maxBytes)
        {
            return Problems.ChunkFramingTooLarge(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"The chunked framing is too large: the host stopped the body at its limit{HostLimit(hostLimit)} (setting {ProblemMapper.HostBodyLimitSetting}), which counts chunk-size lines and chunk extensions with the data, when only {received} bytes of envelope had arrived. Send the envelope without chunk extensions, in chunks of at least 1 KiB, or with Content-Length. Nothing was signed."),
                refusal);
        }

        var limit = HostLimit(hostLimit);
        return Problems.BodyTooLarge(
            string.Create(
                CultureInfo.InvariantCulture,
                $"The request body exceeds the limit of {maxBytes} bytes (setting {HttpOptions.MaxRequestBodyBytesSetting}), or its chunked framing is too large: the host stopped it at its limit{limit} (setting {ProblemMapper.HostBodyLimitSetting}), which counts chunk-size lines and chunk extensions with the data, after {received} bytes of envelope."),
            refusal);
    }

    private static string HostLimit(long? hostLimit) =>
        hostLimit is { } bytes ? string.Create(CultureInfo.InvariantCulture, $" of {bytes} bytes") : string.Empty;

    private static ProblemException TooLarge(long maxBytes) =>
        Problems.BodyTooLarge($"The request body exceeds the limit of {maxBytes} bytes (setting {HttpOptions.MaxRequestBodyBytesSetting}).");

    private static ProblemException TooSlow(HttpOptions rate, long received, Exception? inner = null)
    {
        var message = string.Create(
            CultureInfo.InvariantCulture,
            $"The request body arrived too slowly: {received} bytes in {rate.TimeAllowedFor(received).TotalSeconds:0.#} s; at least {rate.MinDataRateBytesPerSecond} bytes per second after {rate.DataRateGracePeriod.TotalSeconds:0.#} s are needed (settings {HttpOptions.MinDataRateBytesPerSecondSetting}, {HttpOptions.DataRateGracePeriodSetting}). Nothing was signed.");
        return Problems.RequestTimeout(message, inner);
    }
}
