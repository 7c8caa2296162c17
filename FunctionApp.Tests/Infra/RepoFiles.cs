using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Infra;

/// <summary>Files of the repository checkout: infra/, azure-pipelines.yml, the README and docs/ are read in place, not copied.</summary>
public static class RepoFiles
{
    public static string Path => RepoRoot.Path;

    public static string File(params string[] parts) => System.IO.Path.Combine([Path, .. parts]);

    public static string ReadAllText(params string[] parts) => System.IO.File.ReadAllText(File(parts));
}
