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
/// <c>POST /api/sign</c>, whatever the host: reads a widget envelope, signs its canonical bytes, answers with the
/// signature (or, with <c>?output=canonical</c>, with the canonical bytes and the signature in headers), in the forms
/// <c>?forms=</c> asks for within <see cref="HttpOptions.SignatureForms"/> (all of those without it), for the receivers
/// <c>?receiver=</c> names (or the default receiver), each with its own keys. Each host's
/// function is a one-line adapter over <see cref="HandleAsync"/>.
/// </summary>
public sealed class SignHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "Sign";

    private const string AuditOperation = "sign";

    private readonly HttpEnvelopeReader _reader;
    private readonly EnvelopeSigner _signer;
    private readonly ReceiverOptions _receivers;
    private readonly HttpOperation _operation;
    private readonly HttpEndpoint _endpoint;
    private readonly ILogger<SignHandler> _logger;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    internal SignHandler(HttpEnvelopeReader reader, EnvelopeSigner signer, IOptions<ReceiverOptions> receivers, HttpOperation operation, ILogger<SignHandler> logger)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        _reader = reader;
        _signer = signer;
        _receivers = receivers.Value;
        _operation = operation;
        _logger = logger;
        _endpoint = new HttpEndpoint(FunctionName, AuditOperation, AppRoles.Sign, WidgetSigningTelemetry.SignSpan, logger);
    }

    /// <summary>Signs the request's envelope; every client-caused failure is a problem result, never an exception.</summary>
    public Task<IActionResult> HandleAsync(HttpRequest request) => _operation.RunAsync(request, _endpoint, SignAsync);

    private async Task<IActionResult> SignAsync(HttpCall call)
    {
        var request = call.Request;
        call.Form = SignatureFormNames.NameOf(_reader.Options.SignatureForms);

        // The body's and then the canonical form's pooled blocks are charged to it; the signed envelope owns it from
        // there and releases it once the answer is written (or, failing that, when the response is disposed).
        EnvelopeBudgetLease? lease = _reader.Budget.Lease();
        try
        {
            var canonicalBody = QueryParameters.WantsCanonicalBody(request);
            var forms = QueryParameters.Forms(request, _reader.Options.SignatureForms);
            call.Form = SignatureFormNames.NameOf(forms);
            var receivers = QueryParameters.Receivers(request, _receivers);

            // Before any key is looked up, so a receiver not granted is refused alike whether it exists or not.
            await call.EnsureGrantedAsync(receivers).ConfigureAwait(false);

            // Checked whatever the forms: a malformed header is the client's mistake even when no webhook-id is made.
            var webhookId = WebhookRequestHeaders.ReadIdempotencyKey(request);
            var sign = new SignRequest { Receivers = receivers, Forms = forms, IdSeed = webhookId, Lease = lease };
            SignedEnvelope signed;
            using (WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.ReadSpan))
            {
                // The signer owns the body from here: it is returned to the pool as soon as it is read.
                var body = await _reader.ReadBodyAsync(request, lease, call.Aborted).ConfigureAwait(false);
                signed = await _signer.SignAsync(body, sign, call.Aborted).ConfigureAwait(false);
            }

            lease = null;

            // Safety net: if the host never executes the result, the pooled stream still goes back.
            request.HttpContext.Response.RegisterForDispose(signed);
            HttpLog.Signed(_logger, FunctionName, signed.WidgetCount, string.Join(",", signed.Receivers.Select(r => r.Receiver.Value)), signed.KeyId);
            call.Record = new AuditRecord { Operation = AuditOperation, Outcome = AuditOutcome.Signed, Signed = signed };
            return new SignatureResult(signed, canonicalBody, _reader.Options);
        }
        finally
        {
            // Nothing was signed: what the body held goes back to the budget now.
            lease?.Dispose();
        }
    }
}
