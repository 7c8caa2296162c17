using System.Diagnostics;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Audit;

/// <summary>
/// Runs the built audit trail checker (tools/AuditTrail's build output, built with the tests) as a process, with the
/// store's connection string in <c>AUDIT_STORAGE</c> (its default), so none appears on a command line.
/// </summary>
public static class AuditTrailTool
{
    public static Task<ExternalTool> RunAsync(string connectionString, params string[] arguments) =>
        RunInAsync(RepoRoot.Path, connectionString, arguments);

    /// <summary>Runs it with <paramref name="workingDirectory"/> as the current directory (where it looks for the repo's local key).</summary>
    public static Task<ExternalTool> RunInAsync(string workingDirectory, string connectionString, params string[] arguments)
    {
        var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar)).Parent!.Name;
        var dll = Path.Combine(RepoRoot.Path, "tools", "AuditTrail", "bin", configuration, "net10.0", "AuditTrail.dll");
        if (!File.Exists(dll))
        {
            throw new FileNotFoundException($"{dll} is missing: build the tests (they build tools/AuditTrail) or the solution first.", dll);
        }

        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory,
        };
        start.Environment["AUDIT_STORAGE"] = connectionString;
        start.ArgumentList.Add(dll);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return ExternalTool.RunAsync(start, "AuditTrail");
    }
}
