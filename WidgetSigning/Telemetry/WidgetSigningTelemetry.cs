using System.Diagnostics;

namespace WidgetSigning.Telemetry;

/// <summary>
/// The names the service's telemetry is published under: one <see cref="ActivitySource"/> and one meter, both
/// <c>WidgetSigning</c>, and the span names and tag keys docs/operations.md lists. Spans cost nothing while no listener
/// (an OpenTelemetry tracer provider) is attached.
/// </summary>
public static class WidgetSigningTelemetry
{
    /// <summary>The activity source's and the meter's name.</summary>
    public const string Name = "WidgetSigning";

    /// <summary>Span: reading a body, writing its canonical form and computing its MACs (they overlap, so one span).</summary>
    public const string ReadSpan = "widgetsigning.read";

    /// <summary>Span: one signing operation from the caller's checks to the signatures (HTTP or queue).</summary>
    public const string SignSpan = "widgetsigning.sign";

    /// <summary>The span of one <c>/api/verify</c> call.</summary>
    public const string VerifySpan = "widgetsigning.verify";

    /// <summary>The span of one <c>/api/keys</c> call.</summary>
    public const string KeysSpan = "widgetsigning.keys";

    /// <summary>The span of one <c>GET /api/receivers/{receiver}/jwks</c>.</summary>
    public const string PublicKeysSpan = "widgetsigning.public_keys";

    /// <summary>Span: one refresh of a Key Vault secret's versions.</summary>
    public const string KeyVaultRefreshSpan = "widgetsigning.keyvault.refresh";

    /// <summary>Span: reading one caller's grants.</summary>
    public const string GrantsReadSpan = "widgetsigning.grants.read";

    /// <summary>Span: reading a claim-check blob.</summary>
    public const string BlobReadSpan = "widgetsigning.blob.read";

    /// <summary>Span: writing a canonical-form blob.</summary>
    public const string BlobWriteSpan = "widgetsigning.blob.write";

    /// <summary>Span: a signature's wait for its audit record to be durable (a child of the call's span).</summary>
    public const string AuditWaitSpan = "widgetsigning.audit.wait";

    /// <summary>
    /// Span: one durable write of the audit trail, the root of a trace of its own, with a link to the wait of every record
    /// it carries (one write serves several calls).
    /// </summary>
    public const string AuditAppendSpan = "widgetsigning.audit.append";

    /// <summary>Span: one anchor of an audit chain's head, the root of a trace of its own.</summary>
    public const string AuditAnchorSpan = "widgetsigning.audit.anchor";

    /// <summary>Tag: the audit stream a write went to.</summary>
    public const string AuditStreamTag = "widgetsigning.audit.stream";

    /// <summary>Tag: how many records one audit write carried (the group a record was made durable with).</summary>
    public const string AuditRecordsTag = "widgetsigning.audit.records";

    /// <summary>Tag: where the envelope came from (<c>http</c> or <c>queue</c>).</summary>
    public const string SourceTag = "widgetsigning.source";

    /// <summary>Tag: a receiver id the deployment knows, or <see cref="UnknownReceiver"/>.</summary>
    public const string ReceiverTag = "widgetsigning.receiver";

    /// <summary>Tag: the signature forms (<c>plain</c>, <c>webhook</c>, <c>both</c>).</summary>
    public const string FormTag = "widgetsigning.form";

    /// <summary>Tag: <c>signed</c>, <c>refused</c> or <c>failed</c> (signatures); <c>success</c> or <c>failure</c> (refreshes); <c>durable</c> or <c>unavailable</c> (audit waits).</summary>
    public const string OutcomeTag = "widgetsigning.outcome";

    /// <summary>Tag: the short name of a problem type (the last segment of its URN).</summary>
    public const string ProblemTypeTag = "widgetsigning.problem_type";

    /// <summary>Tag: a key's state (<c>current</c>, <c>staged</c>, <c>retiring</c>).</summary>
    public const string KeyStateTag = "widgetsigning.key_state";

    /// <summary>The receiver tag's value when the receiver was not checked against what the deployment knows.</summary>
    public const string UnknownReceiver = "(unknown)";

    /// <summary>The source tag's value for <c>/api/sign</c>.</summary>
    public const string HttpSource = "http";

    /// <summary>The source tag's value for the signing queue.</summary>
    public const string QueueSource = "queue";

    /// <summary>The source every span of the service starts from.</summary>
    public static ActivitySource Source { get; } = new(Name);
}
