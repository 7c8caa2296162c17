namespace FunctionApp.Tests.TestKit;

/// <summary>The repository root: the nearest folder above the test binaries that holds package.json.</summary>
public static class RepoRoot
{
    public static string Path { get; } = Find();

    private static string Find()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(System.IO.Path.Combine(directory.FullName, "package.json")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No package.json above {AppContext.BaseDirectory}: cannot find the repository root.");
    }
}
