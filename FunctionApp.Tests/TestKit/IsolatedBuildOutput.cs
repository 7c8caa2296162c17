namespace FunctionApp.Tests.TestKit;

/// <summary>
/// The isolated app's build output (FunctionApp.Isolated/bin/&lt;configuration&gt;/net10.0): the solution builds it before the
/// tests run. The tests never reference it as an assembly (it is net10.0, they are net8.0 like the in-process app they
/// test); they read its files and run it as a process, as the host does, and load it by name (<see cref="App"/>) where a
/// test needs one of its types or attributes (they run on the .NET 10 runtime, by roll-forward).
/// </summary>
public static class IsolatedBuildOutput
{
    private static readonly Lazy<System.Reflection.Assembly> LoadedApp =
        new(() => System.Reflection.Assembly.LoadFrom(File("FunctionApp.Isolated.dll")));

    /// <summary>FunctionApp.Isolated.dll, loaded once from the output; fails (never skips) when the app was not built.</summary>
    public static System.Reflection.Assembly App => LoadedApp.Value;

    /// <summary>The output folder for the configuration these tests were built in.</summary>
    public static string Path
    {
        get
        {
            var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(System.IO.Path.DirectorySeparatorChar)).Parent!.Name;
            return System.IO.Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "bin", configuration, "net10.0");
        }
    }

    /// <summary>A file of the output; fails (never skips) when the app was not built.</summary>
    public static string File(string name)
    {
        var path = System.IO.Path.Combine(Path, name);
        return System.IO.File.Exists(path)
            ? path
            : throw new FileNotFoundException($"{path} is missing: build the solution first (dotnet build FunctionApp.slnx -c Release).", path);
    }
}
