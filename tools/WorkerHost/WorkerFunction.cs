using System.Text.Json;

namespace WorkerHost;

/// <summary>A function as the worker indexed it (FunctionMetadataResponse); the host rebuilds bindings from <c>raw_bindings</c>.</summary>
internal sealed record WorkerFunction(string Name, string FunctionId, string EntryPoint, string ScriptFile, string Directory, IReadOnlyList<JsonElement> Bindings)
{
    /// <summary>The one input binding whose type ends in "Trigger" (the host's rule for a function's trigger).</summary>
    public JsonElement? Trigger => Bindings
        .Where(b => (Json.Text(b, "type") ?? "").EndsWith("Trigger", StringComparison.OrdinalIgnoreCase)
            && string.Equals(Json.Text(b, "direction"), "in", StringComparison.OrdinalIgnoreCase))
        .Select(b => (JsonElement?)b)
        .FirstOrDefault();

    public string? TriggerType => Json.Text(Trigger, "type");

    public string TriggerName => Json.Text(Trigger, "name") ?? "req";

    public bool IsTrigger(string type) => string.Equals(TriggerType, type, StringComparison.OrdinalIgnoreCase);
}
