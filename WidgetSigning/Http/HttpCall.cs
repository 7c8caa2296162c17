using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Http;

/// <summary>
/// One call of an endpoint as its handler sees it: the request, the caller already authenticated for the endpoint's role,
/// and what the handler tells <see cref="HttpOperation"/> for the audit record and the metrics.
/// </summary>
internal sealed class HttpCall
{
    private readonly CallerGrants _grants;
    private readonly SigningMetrics _metrics;
    private readonly long _started = Stopwatch.GetTimestamp();

    internal HttpCall(HttpRequest request, CallerGrants grants, SigningMetrics metrics)
    {
        Request = request;
        _grants = grants;
        _metrics = metrics;
    }

    public HttpRequest Request { get; }

    /// <summary>The request's own token: it fires when the client goes away.</summary>
    public CancellationToken Aborted => Request.HttpContext.RequestAborted;

    /// <summary>The caller; set before the handler runs.</summary>
    public CallerIdentity Caller { get; internal set; } = null!;

    /// <summary>The receivers the request names, once read: a refusal's audit record names them.</summary>
    public IReadOnlyList<ReceiverId>? Receivers { get; set; }

    /// <summary>The signature form asked for, on an endpoint that signs: its duration and refusals are counted by form.</summary>
    public string? Form { get; set; }

    /// <summary>The audit record of a successful call (operation, status, caller and trace are filled in).</summary>
    public AuditRecord? Record { get; set; }

    internal TimeSpan Elapsed => Stopwatch.GetElapsedTime(_started);

    /// <summary>
    /// Throws unless the caller is granted every one of <paramref name="receivers"/> (which become <see cref="Receivers"/>):
    /// checked before any key is looked up, so a receiver not granted is refused alike whether it exists or not.
    /// </summary>
    public ValueTask EnsureGrantedAsync(IReadOnlyList<ReceiverId> receivers)
    {
        Receivers = receivers;
        return _grants.EnsureGrantedAsync(Caller, receivers, Aborted);
    }

    /// <summary>
    /// The receivers the caller may see in <c>GET /api/keys</c>: null for all (the development caller, or one with
    /// <see cref="AppRoles.KeysReadAll"/>), else those granted to it.
    /// </summary>
    public async ValueTask<IReadOnlySet<string>?> VisibleReceiversAsync() =>
        Caller.IsDevelopment || Caller.HasRole(AppRoles.KeysReadAll)
            ? null
            : await _grants.GrantedReceiversAsync(Caller, Aborted).ConfigureAwait(false);

    /// <summary>Counts <paramref name="signed"/>'s signatures, bytes and duration.</summary>
    public void Signed(SignedEnvelope signed)
    {
        ArgumentNullException.ThrowIfNull(signed);
        _metrics.Signed(WidgetSigningTelemetry.HttpSource, Form!, signed.Receivers.Select(r => r.Receiver.Value), signed.CanonicalLength, Elapsed);
    }
}
