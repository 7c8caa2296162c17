namespace WidgetSigning.Tests;

/// <summary>The repository's root (the folder holding FunctionApp.slnx).</summary>
public static class RepoFiles
{
    public static string Root { get; } = Find();

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
