using System.Text.Json;

namespace AuditTrail;

/// <summary>How the tool reads the store's JSON: strict (no comments, no duplicate names), shallow, by name.</summary>
internal static class AuditJson
{
    /// <summary>Options for every line and anchor.</summary>
    public static readonly JsonDocumentOptions Options = new() { MaxDepth = 8, AllowDuplicateProperties = false };

    /// <summary>The string property <paramref name="name"/>; null when absent or JSON null; false when another type.</summary>
    public static bool TryString(JsonElement element, string name, out string? value)
    {
        value = null;
        if (!element.TryGetProperty(name, out var property) || property.ValueKind == JsonValueKind.Null)
        {
            return true;
        }

        if (property.ValueKind != JsonValueKind.String)
        {
            return false;
        }

        value = property.GetString();
        return true;
    }

    /// <summary>The string property <paramref name="name"/> or null (any other type reads as null).</summary>
    public static string? String(JsonElement element, string name) =>
        TryString(element, name, out var value) ? value : null;

    /// <summary>The integer property <paramref name="name"/>, or null when absent or not a 64-bit integer.</summary>
    public static long? Integer(JsonElement element, string name) =>
        element.TryGetProperty(name, out var property) && property.ValueKind == JsonValueKind.Number && property.TryGetInt64(out var value) ? value : null;
}
