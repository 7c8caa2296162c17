namespace FunctionApp.Tests.Infra;

/// <summary>One run of the Bicep compiler: exit code, output, and the diagnostics it printed on stderr.</summary>
public sealed record BicepRun(int ExitCode, string Output, string Error)
{
    /// <summary>Diagnostic lines (errors, warnings, infos), with the repository path cut for readability.</summary>
    public IReadOnlyList<string> Diagnostics =>
        Error.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(l => l.Replace(RepoFiles.Path + "/", string.Empty, StringComparison.Ordinal))
            .ToList();
}
