using System.Text.Json;

namespace HostCompatibility;

/// <summary>Reads every <c>&lt;function&gt;/function.json</c> under an app root, as the host's function metadata provider does.</summary>
public static class FunctionMetadataReader
{
    /// <summary>The functions under <paramref name="appRoot"/>, by folder name.</summary>
    public static IReadOnlyList<FunctionDefinition> ReadAll(string appRoot)
    {
        var result = new List<FunctionDefinition>();
        foreach (var directory in Directory.EnumerateDirectories(appRoot).Order(StringComparer.Ordinal))
        {
            var path = Path.Combine(directory, "function.json");
            if (File.Exists(path))
            {
                // Cloned so the definition outlives the parsed document.
                using var document = JsonDocument.Parse(File.ReadAllText(path));
                result.Add(new FunctionDefinition(Path.GetFileName(directory), path, document.RootElement.Clone()));
            }
        }

        return result;
    }
}
