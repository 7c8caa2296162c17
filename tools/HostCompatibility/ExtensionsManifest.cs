using System.Text.Json;

namespace HostCompatibility;

/// <summary>Reads <c>bin/extensions.json</c>, the list of startup types the build wrote and the host loads.</summary>
public static class ExtensionsManifest
{
    /// <summary>The entries of <c>extensions.json</c> in <paramref name="binDirectory"/>; none if the file is absent (as the host treats it).</summary>
    public static IReadOnlyList<ExtensionReference> Read(string binDirectory)
    {
        var path = Path.Combine(binDirectory, "extensions.json");
        if (!File.Exists(path))
        {
            return [];
        }

        using var document = JsonDocument.Parse(File.ReadAllText(path));
        if (!document.RootElement.TryGetProperty("extensions", out var items) || items.ValueKind != JsonValueKind.Array)
        {
            throw new FormatException($"{path}: no 'extensions' array.");
        }

        var result = new List<ExtensionReference>();
        foreach (var item in items.EnumerateArray())
        {
            var typeName = Text(item, "typeName") ?? throw new FormatException($"{path}: an entry has no 'typeName'.");
            result.Add(new ExtensionReference(Text(item, "name"), typeName, Text(item, "hintPath")));
        }

        return result;
    }

    private static string? Text(JsonElement item, string name) =>
        item.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
}
