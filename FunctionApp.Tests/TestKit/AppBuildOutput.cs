using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>The app's build output (what the Functions SDK generated: function.json files, bin/extensions.json).</summary>
public static class AppBuildOutput
{
    /// <summary>The output folder for the configuration these tests were built in.</summary>
    public static string Path
    {
        get
        {
            var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(System.IO.Path.DirectorySeparatorChar)).Parent!.Name;
            return System.IO.Path.Combine(RepoRoot.Path, "FunctionApp", "bin", configuration, "net8.0");
        }
    }

    /// <summary>The startup types bin/extensions.json lists, loaded as the host loads them (by assembly-qualified name).</summary>
    public static IReadOnlyList<Type> StartupTypes()
    {
        var file = System.IO.Path.Combine(Path, "bin", "extensions.json");
        var extensions = (JArray)JObject.Parse(File.ReadAllText(file))["extensions"]!;
        return extensions
            .Select(e => e.Value<string>("typeName")!)
            .Select(name => Type.GetType(name, throwOnError: true)!)
            .ToList();
    }
}
