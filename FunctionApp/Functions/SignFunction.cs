using FunctionApp.Http;
using FunctionApp.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions;

/// <summary>
/// <c>POST /api/sign</c>: reads a widget envelope, signs its canonical bytes, answers with the signature
/// (or, with <c>?output=canonical</c>, with the canonical bytes and the signature in headers).
/// </summary>
public sealed class SignFunction
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = "Sign";

    private readonly HttpEnvelopeReader _reader;
    private readonly EnvelopeSigner _signer;
    private readonly ILogger<SignFunction> _logger;

    /// <summary>Creates the function; the host resolves it from DI.</summary>
    public SignFunction(HttpEnvelopeReader reader, EnvelopeSigner signer, ILogger<SignFunction> logger)
    {
        _reader = reader;
        _signer = signer;
        _logger = logger;
    }

    /// <summary>The HTTP trigger.</summary>
    [FunctionName(Name)]
    public async Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "sign")] HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;

        // The body's and then the canonical form's pooled blocks are charged to it; the signed envelope owns it from
        // there and releases it once the answer is written (or, failing that, when the response is disposed).
        EnvelopeBudgetLease? lease = _reader.Budget.Lease();
        try
        {
            var canonicalBody = SignRequestOptions.WantsCanonicalBody(request);
            var webhookId = WebhookRequestHeaders.ReadIdempotencyKey(request);
            var signed = await _reader.ReadAndSignAsync(request, _signer, webhookId, lease, cancellationToken).ConfigureAwait(false);
            lease = null;

            // Safety net: if the host never executes the result, the pooled stream still goes back.
            request.HttpContext.Response.RegisterForDispose(signed);
            HttpLog.Signed(_logger, Name, signed.WidgetCount, signed.KeyId);
            return new SignatureResult(signed, canonicalBody, _reader.Options);
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
        finally
        {
            // Nothing was signed: what the body held goes back to the budget now.
            lease?.Dispose();
        }
    }
}
