using System.Text.Json;

namespace HostCompatibility;

/// <summary>A function as the host sees it: its folder's <c>function.json</c>, written by the Functions SDK at build time.</summary>
/// <param name="Name">The function's name (its folder's name).</param>
/// <param name="Path">The function.json file.</param>
/// <param name="Document">The parsed function.json (owned by this definition's reader's caller; read-only).</param>
public sealed record FunctionDefinition(string Name, string Path, JsonElement Document)
{
    /// <summary>The function.json bindings.</summary>
    public IReadOnlyList<JsonElement> Bindings =>
        Document.TryGetProperty("bindings", out var bindings) && bindings.ValueKind == JsonValueKind.Array ? [.. bindings.EnumerateArray()] : [];

    /// <summary>The trigger bindings (type ending in <c>Trigger</c>); the host needs exactly one.</summary>
    public IReadOnlyList<JsonElement> Triggers =>
        [.. Bindings.Where(b => Text(b, "type")?.EndsWith("Trigger", StringComparison.OrdinalIgnoreCase) == true)];

    /// <summary>The assembly-qualified entry point, <c>Namespace.Class.Method</c>.</summary>
    public string? EntryPoint => Text(Document, "entryPoint");

    /// <summary>The assembly the entry point is in, relative to the function folder.</summary>
    public string? ScriptFile => Text(Document, "scriptFile");

    /// <summary>The tool that wrote the file, e.g. <c>Microsoft.NET.Sdk.Functions.Generator-4.6.0</c>.</summary>
    public string? GeneratedBy => Text(Document, "generatedBy");

    /// <summary>A string property of a binding or of the document, or null.</summary>
    public static string? Text(JsonElement element, string name) =>
        element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String
            ? value.GetString()
            : null;
}
