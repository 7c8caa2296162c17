using FunctionApp.Http;
using FunctionApp.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions;

/// <summary>
/// <c>POST /api/verify</c>: the envelope in the body (as for <c>/api/sign</c>), the signature in <c>X-Signature</c>
/// (or <c>?signature=</c>) and optionally the key id in <c>X-Signature-Key-Id</c> (or <c>?keyId=</c>); answers
/// whether the signature is valid and under which key id.
/// </summary>
public sealed class VerifyFunction
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = "Verify";

    private readonly HttpEnvelopeReader _reader;
    private readonly EnvelopeVerifier _verifier;
    private readonly ILogger<VerifyFunction> _logger;

    /// <summary>Creates the function; the host resolves it from DI.</summary>
    public VerifyFunction(HttpEnvelopeReader reader, EnvelopeVerifier verifier, ILogger<VerifyFunction> logger)
    {
        _reader = reader;
        _verifier = verifier;
        _logger = logger;
    }

    /// <summary>The HTTP trigger.</summary>
    [FunctionName(Name)]
    public async Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "verify")] HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;
        try
        {
            // The cheap fields first: a malformed signature is refused before the body is read.
            var webhook = WebhookRequestHeaders.ReadClaim(request);
            var signature = webhook is null || VerifyRequestFields.HasSignature(request) ? VerifyRequestFields.ReadSignature(request) : (FunctionApp.Keys.Signature?)null;
            var keyId = VerifyRequestFields.ReadKeyId(request);
            var envelope = await _reader.ReadAsync(request, cancellationToken).ConfigureAwait(false);
            var outcome = await _verifier.VerifyAsync(envelope, signature, keyId, webhook, cancellationToken).ConfigureAwait(false);
            HttpLog.Verified(_logger, Name, outcome.WidgetCount, outcome.IsValid, outcome.KeyId, VerificationResult.ReasonText(outcome.Failure));
            return new VerificationResult(outcome);
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, cancellationToken, out var problem))
        {
            if (problem.Type == ProblemTypes.ClientClosedRequest)
            {
                HttpLog.ClientClosedRequest(_logger, Name);
            }
            else
            {
                HttpLog.Rejected(_logger, Name, problem.Status, problem.Type, problem.JsonPath);
            }

            return problem;
        }
    }
}
