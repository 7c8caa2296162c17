using System.Diagnostics;
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

    private readonly HttpEnvelopeReader _reader;
    private readonly EnvelopeSigner _signer;
    private readonly ReceiverOptions _receivers;
    private readonly RequestAuthorizer _authorizer;
    private readonly ILogger<SignHandler> _logger;
    private readonly SigningMetrics _metrics;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    public SignHandler(HttpEnvelopeReader reader, EnvelopeSigner signer, IOptions<ReceiverOptions> receivers, RequestAuthorizer authorizer, ILogger<SignHandler> logger, SigningMetrics? metrics = null)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        _reader = reader;
        _signer = signer;
        _receivers = receivers.Value;
        _authorizer = authorizer;
        _logger = logger;
        _metrics = metrics ?? SigningMetrics.Shared;
    }

    /// <summary>Signs the request's envelope; every client-caused failure is a problem result, never an exception.</summary>
    public async Task<IActionResult> HandleAsync(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;
        var started = Stopwatch.GetTimestamp();
        using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.SignSpan);
        span?.SetTag(WidgetSigningTelemetry.SourceTag, WidgetSigningTelemetry.HttpSource);
        var form = SignatureFormNames.NameOf(_reader.Options.SignatureForms);

        // The body's and then the canonical form's pooled blocks are charged to it; the signed envelope owns it from
        // there and releases it once the answer is written (or, failing that, when the response is disposed).
        EnvelopeBudgetLease? lease = _reader.Budget.Lease();
        CallerIdentity? caller = null;
        IReadOnlyList<ReceiverId>? receivers = null;
        try
        {
            // Who, and may they, before anything of the request is read: an unauthenticated caller learns nothing.
            caller = await _authorizer.AuthenticateAsync(request, AppRoles.Sign).ConfigureAwait(false);
            var canonicalBody = SignRequestOptions.WantsCanonicalBody(request);
            var forms = SignRequestOptions.Forms(request, _reader.Options.SignatureForms);
            form = SignatureFormNames.NameOf(forms);
            receivers = SignRequestOptions.Receivers(request, _receivers);

            // Before any key is looked up, so a receiver not granted is refused alike whether it exists or not.
            await _authorizer.EnsureGrantedAsync(caller, receivers, cancellationToken).ConfigureAwait(false);

            // Checked whatever the forms: a malformed header is the client's mistake even when no webhook-id is made.
            var webhookId = WebhookRequestHeaders.ReadIdempotencyKey(request);
            var sign = new SignRequest { Receivers = receivers, Forms = forms, IdSeed = webhookId, Lease = lease };
            SignedEnvelope signed;
            using (WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.ReadSpan))
            {
                signed = await _reader.ReadAndSignAsync(request, _signer, sign, cancellationToken).ConfigureAwait(false);
            }

            lease = null;

            // Safety net: if the host never executes the result, the pooled stream still goes back.
            request.HttpContext.Response.RegisterForDispose(signed);
            HttpLog.Signed(_logger, FunctionName, signed.WidgetCount, string.Join(",", signed.Receivers.Select(r => r.Receiver.Value)), signed.KeyId);
            _authorizer.Audit(request, new AuditRecord { Operation = AuditOperation, Outcome = AuditOutcome.Signed, Status = StatusCodes.Status200OK, Caller = caller, Signed = signed });
            _metrics.Signed(WidgetSigningTelemetry.HttpSource, form, signed.Receivers.Select(r => r.Receiver.Value), signed.CanonicalLength, Stopwatch.GetElapsedTime(started));
            return new SignatureResult(signed, canonicalBody, _reader.Options);
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, cancellationToken, out var problem))
        {
            LogProblem(_logger, FunctionName, problem);
            _authorizer.AuditRefused(request, AuditOperation, problem, ex, caller, receivers);
            var outcome = problem.Status >= StatusCodes.Status500InternalServerError ? SignOutcome.Failed : SignOutcome.Refused;
            span?.SetStatus(ActivityStatusCode.Error, SigningMetrics.ShortName(problem.Type));
            _metrics.NotSigned(WidgetSigningTelemetry.HttpSource, form, outcome, Stopwatch.GetElapsedTime(started));
            return problem;
        }
        finally
        {
            // Nothing was signed: what the body held goes back to the budget now.
            lease?.Dispose();
        }
    }

    private const string AuditOperation = "sign";

    /// <summary>Logs a problem answer: a client that went away is not a rejection.</summary>
    internal static void LogProblem(ILogger logger, string function, ProblemResult problem)
    {
        if (problem.Type == ProblemTypes.ClientClosedRequest)
        {
            HttpLog.ClientClosedRequest(logger, function);
        }
        else
        {
            HttpLog.Rejected(logger, function, problem.Status, problem.Type, problem.JsonPath);
        }
    }
}
