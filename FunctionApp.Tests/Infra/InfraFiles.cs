using FunctionApp.Tests.Infra.Bicep;

namespace FunctionApp.Tests.Infra;

/// <summary>The Bicep files under infra/, for data-driven source checks.</summary>
public static class InfraFiles
{
    /// <summary>Paths relative to infra/, e.g. <c>main.bicep</c>, <c>modules/storage.bicep</c>.</summary>
    public static IReadOnlyList<string> BicepPaths =>
        Directory.GetFiles(RepoFiles.File("infra"), "*.bicep", SearchOption.AllDirectories)
            .Select(p => Path.GetRelativePath(RepoFiles.File("infra"), p).Replace('\\', '/'))
            .Order(StringComparer.Ordinal)
            .ToList();

    public static TheoryData<string> BicepPathData()
    {
        var data = new TheoryData<string>();
        foreach (var path in BicepPaths)
        {
            data.Add(path);
        }

        return data;
    }

    public static IEnumerable<BicepFile> All() => BicepPaths.Select(BicepFile.Load);

    public static BicepFile Main => BicepFile.Load("main.bicep");

    public static BicepFile Module(string name) => BicepFile.Load($"modules/{name}.bicep");

    /// <summary>The literal value of a string node, failing with the node's text when it is not one.</summary>
    public static string Literal(BicepNode node) =>
        node is BicepString { IsInterpolated: false } s ? s.Value : throw new InvalidCastException($"Line {node.Line}: {node.Text} is not a string literal.");

    /// <summary>The app settings array of the function app module, as name -> value node.</summary>
    public static IReadOnlyDictionary<string, BicepNode> AppSettings(BicepFile functionApp)
    {
        ArgumentNullException.ThrowIfNull(functionApp);
        var settings = functionApp.Resource("site").Body.Path("properties.siteConfig") is BicepObject siteConfig
            ? siteConfig.Array("appSettings")
            : throw new InvalidCastException("siteConfig is not an object literal.");
        return settings.Objects.ToDictionary(s => Literal(s["name"]), s => s["value"], StringComparer.Ordinal);
    }
}
