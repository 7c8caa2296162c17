namespace FunctionApp.Tests.Infra;

/// <summary>The repository checkout the tests run from: infra/ and azure-pipelines.yml are read in place, not copied.</summary>
public static class RepoRoot
{
    private static readonly Lazy<string> LazyPath = new(Find);

    public static string Path => LazyPath.Value;

    public static string File(params string[] parts) => System.IO.Path.Combine([Path, .. parts]);

    public static string ReadAllText(params string[] parts) => System.IO.File.ReadAllText(File(parts));

    private static string Find()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (System.IO.File.Exists(System.IO.Path.Combine(directory.FullName, "FunctionApp.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No FunctionApp.slnx above {AppContext.BaseDirectory}: the tests must run inside the repository.");
    }
}
