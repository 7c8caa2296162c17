using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Http;

/// <summary>
/// <c>POST /api/verify</c>, whatever the host: checks an <c>X-Signature</c> (optionally <c>X-Signature-Key-Id</c>) or the
/// Standard Webhooks headers against the envelope in the body. Each host's function is a one-line adapter.
/// </summary>
public sealed class VerifyHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "Verify";

    private const string AuditOperation = "verify";

    private readonly HttpEnvelopeReader _reader;
    private readonly EnvelopeVerifier _verifier;
    private readonly ReceiverOptions _receivers;
    private readonly HttpOperation _operation;
    private readonly HttpEndpoint _endpoint;
    private readonly ILogger<VerifyHandler> _logger;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    internal VerifyHandler(HttpEnvelopeReader reader, EnvelopeVerifier verifier, IOptions<ReceiverOptions> receivers, HttpOperation operation, ILogger<VerifyHandler> logger)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        _reader = reader;
        _verifier = verifier;
        _receivers = receivers.Value;
        _operation = operation;
        _logger = logger;
        _endpoint = new HttpEndpoint(FunctionName, AuditOperation, AppRoles.Verify, WidgetSigningTelemetry.VerifySpan, logger);
    }

    /// <summary>Verifies the request; every client-caused failure is a problem result, never an exception.</summary>
    public Task<IActionResult> HandleAsync(HttpRequest request) => _operation.RunAsync(request, _endpoint, VerifyAsync);

    private async Task<IActionResult> VerifyAsync(HttpCall call)
    {
        var request = call.Request;

        // The cheap fields first: a malformed signature is refused before the body is read.
        var receiver = QueryParameters.Receiver(request, _receivers);

        // Before any key is looked up, as sign does: a receiver not granted looks the same whether it exists or not.
        await call.EnsureGrantedAsync([receiver]).ConfigureAwait(false);
        var webhook = WebhookRequestHeaders.ReadClaim(request);
        var signature = webhook is null || VerifyRequestFields.HasSignature(request) ? VerifyRequestFields.ReadSignature(request) : (Keys.Signature?)null;
        var keyId = VerifyRequestFields.ReadKeyId(request);
        var envelope = await _reader.ReadAsync(request, call.Aborted).ConfigureAwait(false);
        var outcome = await _verifier.VerifyAsync(envelope, receiver, signature, keyId, webhook, call.Aborted).ConfigureAwait(false);
        HttpLog.Verified(_logger, FunctionName, outcome.WidgetCount, outcome.IsValid, outcome.KeyId, VerificationResult.ReasonText(outcome.Failure));
        call.Record = new AuditRecord
        {
            Operation = AuditOperation,
            Outcome = AuditOutcome.Verified,
            Problem = outcome.IsValid ? string.Empty : VerificationResult.ReasonText(outcome.Failure) ?? string.Empty,
            Receivers = outcome.KeyId is null ? receiver.Value : $"{receiver.Value}:{outcome.KeyId}",
            WidgetCount = outcome.WidgetCount,
        };
        return new VerificationResult(outcome, receiver);
    }
}
