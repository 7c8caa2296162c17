namespace WidgetSigning.Tests;

/// <summary>The repository's root and the shared contract folder beside it (../shared: CANONICAL.md, the vectors).</summary>
public static class RepoFiles
{
    public static string Root { get; } = Find();

    public static string Shared { get; } = Path.GetFullPath(Path.Combine(Root, "..", "shared"));

    private static string Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FunctionApp.slnx")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("FunctionApp.slnx not found above " + AppContext.BaseDirectory);
    }
}
