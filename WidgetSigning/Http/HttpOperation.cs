using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Http;

/// <summary>
/// What every HTTP endpoint does around its own work, in one place: the span, the caller's token and app role, then the
/// handler; a client-caused failure becomes its problem answer, logged (a client that went away as such), counted, and
/// audited naming the caller and the receivers asked for; a success answers only once its audit record is durable. Each handler is then "a
/// validated caller and a request in, a result out".
/// </summary>
internal sealed class HttpOperation
{
    private readonly CallerAuthenticator _authenticator;
    private readonly CallerGrants _grants;
    private readonly AuditTrail _audit;
    private readonly SigningMetrics _metrics;

    /// <summary>Creates the runner (a singleton in DI).</summary>
    public HttpOperation(CallerAuthenticator authenticator, CallerGrants grants, AuditTrail audit, SigningMetrics metrics)
    {
        _authenticator = authenticator;
        _grants = grants;
        _audit = audit;
        _metrics = metrics;
    }

    internal async Task<IActionResult> RunAsync(HttpRequest request, HttpEndpoint endpoint, Func<HttpCall, Task<IActionResult>> handle)
    {
        ArgumentNullException.ThrowIfNull(request);
        var call = new HttpCall(request, _grants, _metrics);
        using var span = WidgetSigningTelemetry.Source.StartActivity(endpoint.Span);
        span?.SetTag(WidgetSigningTelemetry.SourceTag, WidgetSigningTelemetry.HttpSource);
        CallerIdentity? caller = null;
        try
        {
            // Who, and may they, before anything of the request is read: an unauthenticated caller learns nothing.
            // Identified first, so that a caller refused for a role it lacks is still named in the audit record.
            caller = await _authenticator.IdentifyAsync(request, call.Aborted).ConfigureAwait(false);
            CallerAuthenticator.RequireRole(caller, endpoint.Role);
            call.Caller = caller;
            var result = await handle(call).ConfigureAwait(false);
            var record = call.Record ?? throw new InvalidOperationException($"{endpoint.Function} answered without its audit record.");
            // A signature leaves only once its record is durable: a store that cannot take it makes this a 503.
            await AuditAsync(request, record with
            {
                Operation = endpoint.Operation,
                Status = StatusCodes.Status200OK,
                Caller = caller,
            }).ConfigureAwait(false);
            if (record.Signed is { } signed)
            {
                call.Signed(signed);
            }

            return result;
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, call.Aborted, out var problem))
        {
            if (problem.Type == ProblemTypes.ClientClosedRequest)
            {
                HttpLog.ClientClosedRequest(endpoint.Logger, endpoint.Function);
            }
            else
            {
                HttpLog.Rejected(endpoint.Logger, endpoint.Function, problem.Status, problem.Type, problem.JsonPath);
            }

            _metrics.Refused(WidgetSigningTelemetry.HttpSource, problem.Type);
            span?.SetStatus(ActivityStatusCode.Error, SigningMetrics.ShortName(problem.Type));
            if (call.Form is { } form)
            {
                var outcome = problem.Status >= StatusCodes.Status500InternalServerError ? SignOutcome.Failed : SignOutcome.Refused;
                _metrics.NotSigned(WidgetSigningTelemetry.HttpSource, form, outcome, call.Elapsed);
            }

            await AuditAsync(request, new AuditRecord
            {
                Operation = endpoint.Operation,
                Outcome = AuditOutcome.Refused,
                Status = problem.Status,
                Problem = problem.Type,
                Caller = caller,
                Receivers = call.Receivers is { } receivers ? string.Join(",", receivers.Select(r => r.Value)) : string.Empty,
            }).ConfigureAwait(false);
            return problem;
        }
    }

    // The trace the record belongs to: the current span's (AuditRecord.TraceId), else the request's own identifier.
    private Task AuditAsync(HttpRequest request, AuditRecord record) =>
        _audit.RecordAsync(record.TraceId.Length > 0 ? record : record with { TraceId = request.HttpContext.TraceIdentifier });
}
