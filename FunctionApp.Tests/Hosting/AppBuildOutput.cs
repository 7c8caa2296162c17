using System.Reflection;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// The app's build output as the Functions host reads it (FunctionApp/bin/&lt;Configuration&gt;/net8.0: host.json, one
/// folder per function, bin/ with extensions.json), built with the tests because the test project references the app.
/// </summary>
public static class AppBuildOutput
{
    public static string Configuration { get; } =
        typeof(AppBuildOutput).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "Configuration").Value!;

    public static string Path { get; } = Find();

    public static string Bin => System.IO.Path.Combine(Path, "bin");

    /// <summary>A throw-away copy to doctor; the caller deletes it.</summary>
    public static DirectoryInfo CopyToTemp()
    {
        var copy = Directory.CreateTempSubdirectory("app-output-");
        foreach (var file in Directory.EnumerateFiles(Path, "*", SearchOption.AllDirectories))
        {
            var target = System.IO.Path.Combine(copy.FullName, System.IO.Path.GetRelativePath(Path, file));
            Directory.CreateDirectory(System.IO.Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }

        return copy;
    }

    private static string Find()
    {
        var path = System.IO.Path.Combine(RepoRoot.Path, "FunctionApp", "bin", Configuration, "net8.0");
        return File.Exists(System.IO.Path.Combine(path, "bin", "extensions.json"))
            ? path
            : throw new InvalidOperationException($"{path} holds no bin/extensions.json: build FunctionApp ({Configuration}) first.");
    }
}
