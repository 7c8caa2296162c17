using WidgetSigning.Envelopes;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>
/// Reads the envelope in a request body, the way <c>/api/sign</c> and <c>/api/verify</c> share: UTF-8 JSON only,
/// the body read asynchronously into the pool up to <see cref="HttpOptions.MaxRequestBodyBytes"/>, then the
/// strict reader (verify) or the signer (sign).
/// </summary>
internal sealed class HttpEnvelopeReader
{
    private readonly WidgetEnvelopeReader _reader;
    private readonly RecyclableMemoryStreamManager _streams;
    private readonly long _maxBodyBytes;
    private readonly HttpOptions _options;
    private readonly EnvelopeMemoryBudget _budget;

    /// <summary>Creates the reader; bodies are charged to <paramref name="budget"/> while they are held.</summary>
    public HttpEnvelopeReader(WidgetEnvelopeReader reader, RecyclableMemoryStreamManager streams, IOptions<HttpOptions> options, EnvelopeMemoryBudget budget)
    {
        ArgumentNullException.ThrowIfNull(options);
        _reader = reader;
        _streams = streams;
        _options = options.Value;
        _maxBodyBytes = options.Value.MaxRequestBodyBytes;
        _budget = budget;
    }

    /// <summary>The process-wide memory budget bodies are charged to.</summary>
    public EnvelopeMemoryBudget Budget => _budget;

    /// <summary>The limits, the minimum data rate included.</summary>
    public HttpOptions Options => _options;

    /// <summary>Reads and validates the envelope in <paramref name="request"/>'s body; its bytes are charged to the budget only while it is read.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnsupportedMediaType"/>: the body is not declared as UTF-8 JSON.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.BodyTooLarge"/>: the body is over the limit.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.RequestTimeout"/>: the body arrives more slowly than the minimum data rate.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: the memory budget had no room within its wait.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the body is not a valid envelope.</exception>
    public async Task<WidgetEnvelope> ReadAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        using var lease = _budget.Lease();
        var body = await ReadBodyAsync(request, lease, cancellationToken).ConfigureAwait(false);
        await using (body.ConfigureAwait(false))
        {
            return _reader.Read(body);
        }
    }

    /// <summary>
    /// Reads <paramref name="request"/>'s body into the pool up to <see cref="HttpOptions.MaxRequestBodyBytes"/>, charged
    /// to <paramref name="lease"/>, for <see cref="EnvelopeSigner"/> to read and sign: UTF-8 JSON only. The caller owns
    /// the stream.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnsupportedMediaType"/>: the body is not declared as UTF-8 JSON.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.BodyTooLarge"/>: the body is over the limit.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.RequestTimeout"/>: the body arrives more slowly than the minimum data rate.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: the memory budget had no room within its wait.</exception>
    public Task<RecyclableMemoryStream> ReadBodyAsync(HttpRequest request, EnvelopeBudgetLease lease, CancellationToken cancellationToken)
    {
        PooledRequestBody.EnsureJsonContentType(request);
        return PooledRequestBody.ReadAsync(request, _streams, _maxBodyBytes, lease, _options, cancellationToken);
    }
}
