using System.Diagnostics;
using System.Reflection;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// The pinned Bicep compiler (Azure.Bicep.CommandLine.linux-x64, restored by this project's PackageDownload), run as a
/// process. Missing binary: an exception naming the restore command, so the Infra tests fail rather than skip.
/// </summary>
public static class BicepCompiler
{
    /// <summary>The version pinned in Directory.Packages.props (BicepCliVersion).</summary>
    public static string Version => Metadata("BicepCliVersion");

    /// <summary>Path of the compiler binary in the NuGet package folder.</summary>
    public static string Path => Metadata("BicepCliPath");

    /// <summary>Runs the compiler with <paramref name="arguments"/> from the repository root.</summary>
    public static BicepRun Run(params string[] arguments)
    {
        var path = Path;
        if (!File.Exists(path))
        {
            throw new FileNotFoundException($"The Bicep compiler {Version} is not at {path}. Restore it: dotnet restore tools/Bicep/Bicep.proj (or this test project).", path);
        }

        // NuGet does not always keep the executable bit.
        if (!OperatingSystem.IsWindows() && (File.GetUnixFileMode(path) & UnixFileMode.UserExecute) == 0)
        {
            File.SetUnixFileMode(path, File.GetUnixFileMode(path) | UnixFileMode.UserExecute);
        }

        var start = new ProcessStartInfo(path)
        {
            WorkingDirectory = RepoFiles.Path,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        // The compiler would otherwise try to reach the network for telemetry and registry modules.
        start.Environment["BICEP_TELEMETRY_ENABLED"] = "false";
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {path}.");
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromMinutes(3)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"bicep {string.Join(' ', arguments)} did not finish in 3 minutes.");
        }

        return new BicepRun(process.ExitCode, stdout.GetAwaiter().GetResult(), stderr.GetAwaiter().GetResult());
    }

    private static string Metadata(string key) =>
        typeof(BicepCompiler).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().SingleOrDefault(a => a.Key == key)?.Value is { Length: > 0 } value
            ? value
            : throw new InvalidOperationException($"The test assembly has no {key} metadata (see FunctionApp.Tests.csproj).");
}
