using System.Text.Json;
using System.Text.Json.Nodes;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// Compiles a tiny real assembly with a given name, version and startup-type name (Roslyn, in memory), drops it into a
/// copy of bin/ and lists it in that copy's extensions.json: a doctored extension the checker must judge as the host would.
/// </summary>
public static class DoctoredExtension
{
    public static void Add(string bin, string assemblyName, string typeFullName, string version)
    {
        var ns = typeFullName[..typeFullName.LastIndexOf('.')];
        var type = typeFullName[(typeFullName.LastIndexOf('.') + 1)..];
        DoctoredAssembly.Write(bin, assemblyName, version, $"namespace {ns} {{ public sealed class {type} {{ }} }}");
        var manifestPath = Path.Combine(bin, "extensions.json");
        var manifest = JsonNode.Parse(File.ReadAllText(manifestPath))!;
        var entries = manifest["extensions"]!.AsArray();
        foreach (var existing in entries.Where(e => ((string?)e!["typeName"])?.StartsWith(typeFullName + ",", StringComparison.Ordinal) == true).ToList())
        {
            entries.Remove(existing);
        }

        entries.Add(new JsonObject
        {
            ["name"] = type,
            ["typeName"] = $"{typeFullName}, {assemblyName}, Version={version}, Culture=neutral, PublicKeyToken=null",
        });
        File.WriteAllText(manifestPath, manifest.ToJsonString(new JsonSerializerOptions { WriteIndented = true }));
    }
}
