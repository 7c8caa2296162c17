namespace LocalHost;

/// <summary>What a WebJobs-based Functions host is built from (see <see cref="FunctionsHostFactory"/>).</summary>
public sealed class FunctionsHostSetup
{
    /// <summary>The app root the startups see as <c>ApplicationRootPath</c>.</summary>
    public required string ApplicationRootPath { get; init; }

    /// <summary>App settings (root keys) and host.json (under <c>AzureFunctionsJobHost</c>), flattened.</summary>
    public required IReadOnlyDictionary<string, string?> Settings { get; init; }

    /// <summary>The startup types to run, in order (from bin/extensions.json, or a test's own list).</summary>
    public required IReadOnlyList<Type> StartupTypes { get; init; }

    /// <summary>The types whose [FunctionName] methods are the functions.</summary>
    public required IReadOnlyList<Type> FunctionTypes { get; init; }
}
