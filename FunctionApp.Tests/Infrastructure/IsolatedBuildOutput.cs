namespace FunctionApp.Tests.Infrastructure;

/// <summary>
/// The isolated app's build output (FunctionApp.Isolated/bin/&lt;configuration&gt;/net10.0): the solution builds it before the
/// tests run. The tests never reference it as an assembly (it is net10.0, they are net8.0 like the in-process app they
/// test); they read its files and run it as a process, as the host does.
/// </summary>
public static class IsolatedBuildOutput
{
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
