namespace FunctionApp.Tests.Architecture;

/// <summary>
/// Which of the app's folders (namespaces under <c>FunctionApp.</c>) each folder may use: dependencies point one way,
/// from the thin adapters down to the primitives. A folder may always use itself (and its sub-folders).
/// </summary>
public static class FolderRules
{
    /// <summary>The root namespace: only Startup.cs, which wires everything and may use every folder.</summary>
    public const string Root = "(root)";

    public static IReadOnlyDictionary<string, IReadOnlySet<string>> Allowed { get; } = new Dictionary<string, IReadOnlySet<string>>(StringComparer.Ordinal)
    {
        [Root] = Set("Functions", "Http", "Queues", "Signing", "Envelopes", "Keys", "Primitives"),
        ["Functions"] = Set("Http", "Queues", "Signing", "Envelopes", "Keys", "Primitives"),
        ["Http"] = Set("Signing", "Envelopes", "Keys", "Primitives"),
        ["Queues"] = Set("Signing", "Envelopes", "Keys", "Primitives"),
        ["Signing"] = Set("Envelopes", "Keys", "Primitives"),
        ["Envelopes"] = Set("Primitives"),
        ["Keys"] = Set("Primitives"),
        ["Primitives"] = Set(),
    };

    /// <summary>The folder of a namespace: <c>FunctionApp.Functions.QueueTrigger</c> → <c>Functions</c>; null if not ours.</summary>
    public static string? FolderOf(string? ns)
    {
        if (ns == "FunctionApp")
        {
            return Root;
        }

        if (ns is null || !ns.StartsWith("FunctionApp.", StringComparison.Ordinal))
        {
            return null;
        }

        var rest = ns["FunctionApp.".Length..];
        var dot = rest.IndexOf('.', StringComparison.Ordinal);
        return dot < 0 ? rest : rest[..dot];
    }

    public static bool IsAllowed(string from, string to) =>
        from == to || (Allowed.TryGetValue(from, out var targets) && targets.Contains(to));

    private static HashSet<string> Set(params string[] folders) => new(folders, StringComparer.Ordinal);
}
