using System.Text.Json;
using System.Text.Json.Serialization;

namespace HostCompatibility;

/// <summary>
/// What the Azure Functions v4 in-process host for .NET 8 apps (the in-proc line, 4.8xx, from <see cref="HostVersion"/>
/// on) requires of an app, as read from its public source (github.com/Azure/azure-functions-host, commit
/// <see cref="HostCommit"/>; host-facts.json says file by file).
/// </summary>
public sealed class HostFacts
{
    private static readonly JsonSerializerOptions Json = new() { PropertyNameCaseInsensitive = true, ReadCommentHandling = JsonCommentHandling.Skip };

    /// <summary>The azure-functions-host commit the facts were read at.</summary>
    public required string HostCommit { get; init; }

    /// <summary>The lowest host version the facts hold for (e.g. <c>4.837.0</c>); the versions are what that host ships.</summary>
    public required string HostVersion { get; init; }

    /// <summary>The lowest <c>Microsoft.NET.Sdk.Functions</c> version for .NET 8 in-process apps.</summary>
    public required string MinimumFunctionsSdkVersion { get; init; }

    /// <summary>The host's minimum versions per startup type.</summary>
    public required IReadOnlyList<ExtensionRequirement> ExtensionRequirements { get; init; }

    /// <summary>The assemblies the host unifies, with the versions it ships.</summary>
    public required IReadOnlyList<UnifiedAssembly> UnifiedAssemblies { get; init; }

    /// <summary>
    /// The <c>private</c> entries of the host's runtime assembly list: the host loads the app's own copy of these
    /// (from the app's deps file or bin/), never its own.
    /// </summary>
    public required IReadOnlyList<string> PrivateAssemblies { get; init; }

    /// <summary>The facts shipped with this library (host-facts.json).</summary>
    public static HostFacts Default { get; } = LoadEmbedded();

    /// <summary>Parses a host-facts JSON document (tests use doctored copies).</summary>
    public static HostFacts Parse(string json) =>
        JsonSerializer.Deserialize<FactsDocument>(json, Json) is { } document
            ? new HostFacts
            {
                HostCommit = document.HostCommit ?? throw new FormatException("host facts: 'hostCommit' is missing."),
                HostVersion = document.HostVersion ?? throw new FormatException("host facts: 'hostVersion' is missing."),
                MinimumFunctionsSdkVersion = document.MinimumFunctionsSdkVersion ?? throw new FormatException("host facts: 'minimumFunctionsSdkVersion' is missing."),
                ExtensionRequirements = document.ExtensionRequirements ?? [],
                UnifiedAssemblies = document.UnifiedAssemblies ?? [],
                PrivateAssemblies = document.PrivateAssemblies ?? [],
            }
            : throw new FormatException("host facts: not a JSON object.");

    private static HostFacts LoadEmbedded()
    {
        using var stream = typeof(HostFacts).Assembly.GetManifestResourceStream("HostCompatibility.host-facts.json")
            ?? throw new InvalidOperationException("host-facts.json is not embedded in HostCompatibility.dll.");
        using var reader = new StreamReader(stream);
        return Parse(reader.ReadToEnd());
    }

    private sealed class FactsDocument
    {
        [JsonPropertyName("hostCommit")]
        public string? HostCommit { get; set; }

        [JsonPropertyName("hostVersion")]
        public string? HostVersion { get; set; }

        [JsonPropertyName("minimumFunctionsSdkVersion")]
        public string? MinimumFunctionsSdkVersion { get; set; }

        [JsonPropertyName("extensionRequirements")]
        public List<ExtensionRequirement>? ExtensionRequirements { get; set; }

        [JsonPropertyName("unifiedAssemblies")]
        public List<UnifiedAssembly>? UnifiedAssemblies { get; set; }

        [JsonPropertyName("privateAssemblies")]
        public List<string>? PrivateAssemblies { get; set; }
    }
}
