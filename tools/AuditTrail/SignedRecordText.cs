using System.Globalization;
using System.Text;
using System.Text.Json;

namespace AuditTrail;

/// <summary>A <c>signed</c> line as <c>find</c> prints it; every stored value is cleaned before it is printed.</summary>
internal static class SignedRecordText
{
    /// <summary>The most receivers printed for one record.</summary>
    public const int MaxReceivers = 64;

    /// <summary>The lines describing <paramref name="record"/> at <paramref name="stream"/> <paramref name="position"/>.</summary>
    public static string Describe(string stream, long position, JsonElement record)
    {
        var c = CultureInfo.InvariantCulture;
        var text = new StringBuilder();
        text.AppendLine(c, $"stream {stream} position {position}");
        text.AppendLine(c, $"  time             {Printable.Clean(AuditJson.String(record, "time"))}");
        text.AppendLine(c, $"  operation        {Printable.Clean(AuditJson.String(record, "operation"))}");
        if (record.TryGetProperty("caller", out var caller) && caller.ValueKind == JsonValueKind.Object)
        {
            text.AppendLine(c, $"  caller           objectId {Printable.Clean(AuditJson.String(caller, "objectId"))}, appId {Printable.Clean(AuditJson.String(caller, "appId"))}, tenantId {Printable.Clean(AuditJson.String(caller, "tenantId"))}");
        }

        if (AuditJson.String(record, "queue") is not null || AuditJson.String(record, "messageId") is not null)
        {
            text.AppendLine(c, $"  queue            {Printable.Clean(AuditJson.String(record, "queue"))}, messageId {Printable.Clean(AuditJson.String(record, "messageId"))}");
        }

        if (record.TryGetProperty("receivers", out var receivers) && receivers.ValueKind == JsonValueKind.Array)
        {
            var shown = 0;
            foreach (var receiver in receivers.EnumerateArray())
            {
                if (shown++ == MaxReceivers)
                {
                    text.AppendLine(c, $"  receiver         … ({receivers.GetArrayLength() - MaxReceivers} more)");
                    break;
                }

                if (receiver.ValueKind == JsonValueKind.Object)
                {
                    text.AppendLine(c, $"  receiver         {Printable.Clean(AuditJson.String(receiver, "receiver"))}: key {Printable.Clean(AuditJson.String(receiver, "keyId"))}, {Printable.Clean(AuditJson.String(receiver, "algorithm"))}");
                }
            }
        }

        text.AppendLine(c, $"  webhook-id       {Printable.Clean(AuditJson.String(record, "webhookId"))}");
        text.AppendLine(c, $"  canonical length {AuditJson.Integer(record, "canonicalLength")?.ToString(c) ?? "?"}");
        text.AppendLine(c, $"  canonical sha256 {Printable.Clean(AuditJson.String(record, "canonicalSha256"))}");
        return text.ToString();
    }
}
