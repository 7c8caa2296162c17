using FunctionApp.Envelopes;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Http;

/// <summary>
/// Reads the envelope in a request body, the way <c>/api/sign</c> and <c>/api/verify</c> share: UTF-8 JSON only,
/// the body read asynchronously into the pool up to <see cref="HttpOptions.MaxRequestBodyBytes"/>, then the
/// strict reader. The pooled body is returned before this method does.
/// </summary>
public sealed class HttpEnvelopeReader
{
    private readonly WidgetEnvelopeReader _reader;
    private readonly RecyclableMemoryStreamManager _streams;
    private readonly long _maxBodyBytes;

    /// <summary>Creates the reader.</summary>
    public HttpEnvelopeReader(WidgetEnvelopeReader reader, RecyclableMemoryStreamManager streams, IOptions<HttpOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _reader = reader;
        _streams = streams;
        _maxBodyBytes = options.Value.MaxRequestBodyBytes;
    }

    /// <summary>Reads and validates the envelope in <paramref name="request"/>'s body.</summary>
    /// <exception cref="UnsupportedContentTypeException">The body is not declared as UTF-8 JSON.</exception>
    /// <exception cref="RequestBodyTooLargeException">The body is over the limit.</exception>
    /// <exception cref="EnvelopeFormatException">The body is not a valid envelope.</exception>
    public async Task<WidgetEnvelope> ReadAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        PooledRequestBody.EnsureJsonContentType(request);
        var body = await PooledRequestBody.ReadAsync(request, _streams, _maxBodyBytes, cancellationToken).ConfigureAwait(false);
        await using (body.ConfigureAwait(false))
        {
            return _reader.Read(body);
        }
    }
}
