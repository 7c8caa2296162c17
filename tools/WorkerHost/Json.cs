using System.Globalization;
using System.Text.Json;

namespace WorkerHost;

/// <summary>Case-insensitive reads of host.json, worker.config.json and raw bindings, as the host reads them (JObject, ignore case).</summary>
internal static class Json
{
    public static readonly JsonDocumentOptions Lenient = new() { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true };

    public static JsonElement? Get(JsonElement? element, string name)
    {
        if (element is not { ValueKind: JsonValueKind.Object } e)
        {
            return null;
        }

        foreach (var property in e.EnumerateObject())
        {
            if (string.Equals(property.Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return property.Value;
            }
        }

        return null;
    }

    public static string? Text(JsonElement? element, string name) => Get(element, name) switch
    {
        { ValueKind: JsonValueKind.String } s => s.GetString(),
        { ValueKind: JsonValueKind.Number or JsonValueKind.True or JsonValueKind.False } v => v.GetRawText(),
        _ => null,
    };

    public static int? Int(JsonElement? element, string name) =>
        int.TryParse(Text(element, name), NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : null;

    public static TimeSpan? Duration(JsonElement? element, string name) =>
        TimeSpan.TryParse(Text(element, name), CultureInfo.InvariantCulture, out var value) ? value : null;
}
