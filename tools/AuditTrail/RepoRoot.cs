namespace AuditTrail;

/// <summary>The repository root: the nearest folder at or above the current directory that holds FunctionApp.slnx.</summary>
internal static class RepoRoot
{
    /// <summary>The root above <paramref name="start"/>, or null outside the repository.</summary>
    public static string? Find(string start)
    {
        for (var directory = new DirectoryInfo(start); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "FunctionApp.slnx")))
            {
                return directory.FullName;
            }
        }

        return null;
    }
}
