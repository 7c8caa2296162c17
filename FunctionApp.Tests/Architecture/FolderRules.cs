namespace FunctionApp.Tests.Architecture;

/// <summary>
/// Which folders each folder may use, across the three projects: the core (<c>WidgetSigning/</c>, namespaces
/// <c>WidgetSigning.X</c>) and the two thin hosts (<c>FunctionApp/</c>: the in-process root and <c>Functions/</c>;
/// <c>FunctionApp.Isolated/</c>: its root, <c>Functions/</c> and <c>Hosting/</c>). Dependencies point one way, from the host adapters down
/// to the primitives; a folder may always use itself (and its sub-folders). No host may use the other host.
/// </summary>
public static class FolderRules
{
    /// <summary>The in-process app's root namespace: only Startup.cs, which wires everything.</summary>
    public const string Root = "(root)";

    /// <summary>The in-process app's adapters and its queue trigger (<c>FunctionApp.Functions</c>).</summary>
    public const string InProcessFunctions = "Functions";

    /// <summary>The isolated app's root namespace: Program.cs (top-level statements compile to the global namespace's <c>Program</c>).</summary>
    public const string IsolatedRoot = "(isolated root)";

    /// <summary>The isolated app's adapters (<c>FunctionApp.Isolated.Functions</c>).</summary>
    public const string IsolatedFunctions = "Isolated/Functions";

    /// <summary>
    /// The isolated worker's own server configuration (<c>FunctionApp.Isolated.Hosting</c>: Kestrel's memory pool, the
    /// refusal of requests not from the host, which answers with the core's problem details).
    /// </summary>
    public const string IsolatedHosting = "Isolated/Hosting";

    /// <summary>The core's folders, in dependency order.</summary>
    public static IReadOnlyList<string> CoreFolders { get; } = ["Http", "Queues", "Audit", "Callers", "Signing", "SpareCores", "Hashing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"];

    public static IReadOnlyDictionary<string, IReadOnlySet<string>> Allowed { get; } = new Dictionary<string, IReadOnlySet<string>>(StringComparer.Ordinal)
    {
        [Root] = Set(InProcessFunctions, "Http", "Queues", "Audit", "Callers", "Signing", "SpareCores", "Hashing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        [InProcessFunctions] = Set("Http", "Queues", "Audit", "Signing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        [IsolatedRoot] = Set(IsolatedFunctions, IsolatedHosting, "Http", "Queues", "Audit", "Callers", "Signing", "SpareCores", "Hashing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        [IsolatedFunctions] = Set("Http", "Queues", "Audit", "Signing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        [IsolatedHosting] = Set("Http"),
        ["Http"] = Set("Audit", "Callers", "Signing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        ["Queues"] = Set("Audit", "Signing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        ["Audit"] = Set("Callers", "Signing", "Envelopes", "Keys", "Storage", "Telemetry", "Primitives"),
        ["Callers"] = Set("Keys", "Storage", "Telemetry", "Primitives"),
        ["Signing"] = Set("SpareCores", "Hashing", "Envelopes", "Keys", "Telemetry", "Primitives"),
        ["SpareCores"] = Set("Hashing", "Envelopes", "Telemetry", "Primitives"),
        ["Hashing"] = Set("Keys", "Primitives"),
        ["Envelopes"] = Set("Primitives"),
        ["Keys"] = Set("Telemetry", "Primitives"),
        ["Storage"] = Set("Primitives"),
        ["Telemetry"] = Set("Primitives"),
        ["Primitives"] = Set(),
    };

    /// <summary>
    /// The folder of a namespace: <c>WidgetSigning.Signing</c> → <c>Signing</c>, <c>FunctionApp.Functions.QueueTrigger</c>
    /// → <c>Functions</c>, <c>FunctionApp.Isolated.Functions</c> → <c>Isolated/Functions</c>; null if not ours.
    /// </summary>
    public static string? FolderOf(string? ns)
    {
        switch (ns)
        {
            case "FunctionApp":
                return Root;
            case "FunctionApp.Isolated":
                return IsolatedRoot;
            case null:
                return null;
        }

        if (ns.StartsWith("FunctionApp.Isolated.", StringComparison.Ordinal))
        {
            return "Isolated/" + FirstSegment(ns["FunctionApp.Isolated.".Length..]);
        }

        if (ns.StartsWith("FunctionApp.", StringComparison.Ordinal) && !ns.StartsWith("FunctionApp.Tests", StringComparison.Ordinal) &&
            !ns.StartsWith("FunctionApp.Benchmarks", StringComparison.Ordinal))
        {
            return FirstSegment(ns["FunctionApp.".Length..]);
        }

        return ns.StartsWith("WidgetSigning.", StringComparison.Ordinal) ? FirstSegment(ns["WidgetSigning.".Length..]) : null;
    }

    public static bool IsAllowed(string from, string to) =>
        from == to || (Allowed.TryGetValue(from, out var targets) && targets.Contains(to));

    private static string FirstSegment(string rest)
    {
        var dot = rest.IndexOf('.', StringComparison.Ordinal);
        return dot < 0 ? rest : rest[..dot];
    }

    private static HashSet<string> Set(params string[] folders) => new(folders, StringComparer.Ordinal);
}
