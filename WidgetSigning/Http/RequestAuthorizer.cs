using Microsoft.AspNetCore.Http;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Keys;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Http;

/// <summary>
/// The caller checks every HTTP handler makes, first: the token and the endpoint's app role, then (to sign) the grants
/// of each receiver named; and the audit record every call leaves, whatever it came to.
/// </summary>
public sealed class RequestAuthorizer
{
    private readonly CallerAuthenticator _authenticator;
    private readonly CallerGrants _grants;
    private readonly AuditLog _audit;
    private readonly SigningMetrics _metrics;

    /// <summary>Creates the authorizer (a singleton in DI).</summary>
    public RequestAuthorizer(CallerAuthenticator authenticator, CallerGrants grants, AuditLog audit, SigningMetrics? metrics = null)
    {
        _authenticator = authenticator;
        _grants = grants;
        _audit = audit;
        _metrics = metrics ?? SigningMetrics.Shared;
    }

    /// <summary>The caller of <paramref name="request"/>, who holds <paramref name="role"/>.</summary>
    public ValueTask<CallerIdentity> AuthenticateAsync(HttpRequest request, string role) =>
        _authenticator.AuthenticateAsync(request, role, request?.HttpContext.RequestAborted ?? default);

    /// <summary>
    /// Throws unless <paramref name="caller"/> is granted every one of <paramref name="receivers"/>: checked before any key
    /// is looked up, so a receiver not granted is refused alike whether it exists or not, on every endpoint.
    /// </summary>
    public ValueTask EnsureGrantedAsync(CallerIdentity caller, IReadOnlyList<ReceiverId> receivers, CancellationToken cancellationToken) =>
        _grants.EnsureGrantedAsync(caller, receivers, cancellationToken);

    /// <summary>
    /// The receivers <paramref name="caller"/> may see in <c>GET /api/keys</c>: null for all (the development caller, or
    /// one with <see cref="AppRoles.KeysReadAll"/>), else those granted to it.
    /// </summary>
    public async ValueTask<IReadOnlySet<string>?> VisibleReceiversAsync(CallerIdentity caller, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(caller);
        return caller.IsDevelopment || caller.HasRole(AppRoles.KeysReadAll)
            ? null
            : await _grants.GrantedReceiversAsync(caller, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Writes the audit record of <paramref name="request"/>.</summary>
    public void Audit(HttpRequest request, AuditRecord record)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(record);
        // The trace the record belongs to: the current span's (AuditRecord.TraceId), else the request's own identifier.
        _audit.Write(record.TraceId.Length > 0 ? record : record with { TraceId = request.HttpContext.TraceIdentifier });
    }

    /// <summary>
    /// Writes the audit record of <paramref name="request"/>, answered with <paramref name="problem"/> for
    /// <paramref name="exception"/>, naming the caller (also one refused for a role it lacks) and the receivers it asked
    /// for, and counts the refusal by its problem type.
    /// </summary>
    public void AuditRefused(HttpRequest request, string operation, ProblemResult problem, Exception exception, CallerIdentity? caller, IEnumerable<ReceiverId>? receivers)
    {
        ArgumentNullException.ThrowIfNull(problem);
        caller ??= (exception as RoleRequiredException)?.Caller;
        _metrics.Refused(WidgetSigningTelemetry.HttpSource, problem.Type);
        Audit(request, new AuditRecord
        {
            Operation = operation,
            Outcome = AuditOutcome.Refused,
            Status = problem.Status,
            Problem = problem.Type,
            Caller = caller,
            Receivers = receivers is null ? string.Empty : string.Join(",", receivers.Select(r => r.Value)),
        });
    }
}
