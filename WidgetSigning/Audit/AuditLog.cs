using Microsoft.Extensions.Logging;

namespace WidgetSigning.Audit;

/// <summary>
/// Writes audit records as one structured log event (id 7001, category <c>WidgetSigning.Audit</c>), whatever the
/// outcome; docs/operations.md has the queries that read them back. A singleton in DI.
/// </summary>
internal sealed partial class AuditLog
{
    /// <summary>The event id of every audit record.</summary>
    public const int EventId = 7001;

    /// <summary>The log category of every audit record.</summary>
    public const string Category = "WidgetSigning.Audit";

    private readonly ILogger _logger;

    /// <summary>Creates the writer.</summary>
    public AuditLog(ILoggerFactory loggers)
    {
        ArgumentNullException.ThrowIfNull(loggers);
        _logger = loggers.CreateLogger(Category);
    }

    /// <summary>Writes <paramref name="record"/>.</summary>
    public void Write(AuditRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        var signed = record.Signed;
        Record(
            _logger,
            record.Operation,
            record.Outcome,
            record.Status,
            record.Problem,
            record.Caller?.ObjectId ?? string.Empty,
            record.Caller?.AppId ?? string.Empty,
            record.Caller?.TenantId ?? string.Empty,
            record.Queue ?? string.Empty,
            record.MessageId ?? string.Empty,
            record.SignedReceivers.Count > 0 ? AuditRecord.ReceiversOf(record.SignedReceivers) : record.Receivers,
            signed?.Webhook?.Id ?? record.WebhookId ?? string.Empty,
            signed?.WidgetCount ?? record.WidgetCount ?? 0,
            signed?.CanonicalLength ?? record.CanonicalLength ?? 0,
            signed?.CanonicalSha256.ToHex() ?? record.CanonicalSha256 ?? string.Empty,
            record.TraceId);
    }

    [LoggerMessage(EventId = EventId, Level = LogLevel.Information,
        Message = "Audit {Operation} {Outcome} {Status} {Problem}: caller {CallerObjectId} app {CallerAppId} tenant {CallerTenantId}, queue {Queue} message {MessageId}; receivers {Receivers}; webhook-id {WebhookId}, {WidgetCount} widgets, {CanonicalLength} canonical bytes, SHA-256 {CanonicalSha256}; trace {TraceId}")]
    private static partial void Record(
        ILogger logger, string operation, string outcome, int status, string problem, string callerObjectId, string callerAppId, string callerTenantId,
        string queue, string messageId, string receivers, string webhookId, int widgetCount, long canonicalLength, string canonicalSha256, string traceId);
}
