using System.Globalization;
using System.Text;
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
        if (!_logger.IsEnabled(LogLevel.Information))
        {
            return;
        }

        var signed = record.Signed;
        var caller = record.Caller;
        var receivers = record.SignedReceivers.Count > 0 ? AuditRecord.ReceiversOf(record.SignedReceivers) : record.Receivers;
        var webhookId = signed?.Webhook?.Id ?? record.WebhookId ?? string.Empty;
        var widgets = signed?.WidgetCount ?? record.WidgetCount ?? 0;
        var length = signed?.CanonicalLength ?? record.CanonicalLength ?? 0;
        var sha256 = signed?.CanonicalSha256.ToHex() ?? record.CanonicalSha256 ?? string.Empty;
        Record(
            _logger,
            record.Operation,
            record.Outcome,
            record.Status,
            Summary(record, receivers, webhookId, widgets, length, sha256),
            record.Problem,
            caller?.ObjectId ?? string.Empty,
            caller?.AppId ?? string.Empty,
            caller?.TenantId ?? string.Empty,
            record.Queue ?? string.Empty,
            record.MessageId ?? string.Empty,
            receivers,
            webhookId,
            widgets,
            length,
            sha256,
            record.TraceId);
    }

    // The message names what is known and omits what is not (a refused call without a token has no caller, a call no
    // queue); the fields keep every member, empty when unknown, for queries.
    private static string Summary(AuditRecord record, string receivers, string webhookId, int widgets, long length, string sha256)
    {
        var text = new StringBuilder();
        if (record.Problem.Length > 0)
        {
            text.Append(' ').Append(record.Problem);
        }

        var separator = ": ";
        if (record.Caller is { } caller)
        {
            text.Append(separator).Append("caller ").Append(caller.ObjectId).Append(" app ").Append(caller.AppId).Append(" tenant ").Append(caller.TenantId);
            separator = "; ";
        }

        if (record.Queue is { Length: > 0 } queue)
        {
            text.Append(separator).Append("queue ").Append(queue).Append(" message ").Append(record.MessageId);
            separator = "; ";
        }

        if (receivers.Length > 0)
        {
            text.Append(separator).Append("receivers ").Append(receivers);
            separator = "; ";
        }

        if (webhookId.Length > 0 || sha256.Length > 0)
        {
            text.Append(separator).Append(CultureInfo.InvariantCulture, $"webhook-id {webhookId}, {widgets} widgets, {length} canonical bytes, SHA-256 {sha256}");
        }

        return text.ToString();
    }

    // Every field is a member of the record's state, whether the message names it or not (SYSLIB1015 is about the text);
    // a field the message does not name is keyed by its parameter's name, so those are spelt as the fields are.
#pragma warning disable SYSLIB1015
    [LoggerMessage(EventId = EventId, Level = LogLevel.Information, Message = "Audit {Operation} {Outcome} {Status}{Summary}; trace {TraceId}")]
    private static partial void Record(
        ILogger logger, string operation, string outcome, int status, string summary, string Problem, string CallerObjectId, string CallerAppId, string CallerTenantId,
        string Queue, string MessageId, string Receivers, string WebhookId, int WidgetCount, long CanonicalLength, string CanonicalSha256, string traceId);
#pragma warning restore SYSLIB1015
}
