using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
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
    private readonly RequestAuthorizer _authorizer;
    private readonly ILogger<VerifyHandler> _logger;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    public VerifyHandler(HttpEnvelopeReader reader, EnvelopeVerifier verifier, IOptions<ReceiverOptions> receivers, RequestAuthorizer authorizer, ILogger<VerifyHandler> logger)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        _reader = reader;
        _verifier = verifier;
        _receivers = receivers.Value;
        _authorizer = authorizer;
        _logger = logger;
    }

    private const string AuditOperation = "verify";

    /// <summary>Verifies the request; every client-caused failure is a problem result, never an exception.</summary>
    public async Task<IActionResult> HandleAsync(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;
        CallerIdentity? caller = null;
        ReceiverId? receiver = null;
        try
        {
            caller = await _authorizer.AuthenticateAsync(request, AppRoles.Verify).ConfigureAwait(false);

            // The cheap fields first: a malformed signature is refused before the body is read.
            receiver = SignRequestOptions.Receiver(request, _receivers);

            // Before any key is looked up, as sign does: a receiver not granted looks the same whether it exists or not.
            await _authorizer.EnsureGrantedAsync(caller, [receiver], cancellationToken).ConfigureAwait(false);
            var webhook = WebhookRequestHeaders.ReadClaim(request);
            var signature = webhook is null || VerifyRequestFields.HasSignature(request) ? VerifyRequestFields.ReadSignature(request) : (Keys.Signature?)null;
            var keyId = VerifyRequestFields.ReadKeyId(request);
            var envelope = await _reader.ReadAsync(request, cancellationToken).ConfigureAwait(false);
            var outcome = await _verifier.VerifyAsync(envelope, receiver, signature, keyId, webhook, cancellationToken).ConfigureAwait(false);
            HttpLog.Verified(_logger, FunctionName, outcome.WidgetCount, outcome.IsValid, outcome.KeyId, VerificationResult.ReasonText(outcome.Failure));
            _authorizer.Audit(request, new AuditRecord
            {
                Operation = AuditOperation,
                Outcome = AuditOutcome.Verified,
                Status = StatusCodes.Status200OK,
                Problem = outcome.IsValid ? string.Empty : VerificationResult.ReasonText(outcome.Failure) ?? string.Empty,
                Caller = caller,
                Receivers = outcome.KeyId is null ? receiver.Value : $"{receiver.Value}:{outcome.KeyId}",
                WidgetCount = outcome.WidgetCount,
            });
            return new VerificationResult(outcome, receiver);
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, cancellationToken, out var problem))
        {
            SignHandler.LogProblem(_logger, FunctionName, problem);
            _authorizer.AuditRefused(request, AuditOperation, problem, ex, caller, receiver is null ? null : [receiver]);
            return problem;
        }
    }
}
