using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace WidgetSigning.Http;

/// <summary>
/// <c>POST /api/verify</c>, whatever the host: checks an <c>X-Signature</c> (optionally <c>X-Signature-Key-Id</c>) or the
/// Standard Webhooks headers against the envelope in the body. Each host's function is a one-line adapter.
/// </summary>
public sealed class VerifyHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "Verify";

    private readonly HttpEnvelopeReader _reader;
    private readonly EnvelopeVerifier _verifier;
    private readonly ReceiverOptions _receivers;
    private readonly ILogger<VerifyHandler> _logger;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    public VerifyHandler(HttpEnvelopeReader reader, EnvelopeVerifier verifier, IOptions<ReceiverOptions> receivers, ILogger<VerifyHandler> logger)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        _reader = reader;
        _verifier = verifier;
        _receivers = receivers.Value;
        _logger = logger;
    }

    /// <summary>Verifies the request; every client-caused failure is a problem result, never an exception.</summary>
    public async Task<IActionResult> HandleAsync(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;
        try
        {
            // The cheap fields first: a malformed signature is refused before the body is read.
            var receiver = SignRequestOptions.Receiver(request, _receivers);
            var webhook = WebhookRequestHeaders.ReadClaim(request);
            var signature = webhook is null || VerifyRequestFields.HasSignature(request) ? VerifyRequestFields.ReadSignature(request) : (Keys.Signature?)null;
            var keyId = VerifyRequestFields.ReadKeyId(request);
            var envelope = await _reader.ReadAsync(request, cancellationToken).ConfigureAwait(false);
            var outcome = await _verifier.VerifyAsync(envelope, receiver, signature, keyId, webhook, cancellationToken).ConfigureAwait(false);
            HttpLog.Verified(_logger, FunctionName, outcome.WidgetCount, outcome.IsValid, outcome.KeyId, VerificationResult.ReasonText(outcome.Failure));
            return new VerificationResult(outcome, receiver);
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, cancellationToken, out var problem))
        {
            SignHandler.LogProblem(_logger, FunctionName, problem);
            return problem;
        }
    }
}
