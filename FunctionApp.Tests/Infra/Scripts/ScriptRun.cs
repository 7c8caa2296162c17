using System.Diagnostics;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>Runs one of infra/scripts with bash and collects what it printed.</summary>
public sealed record ScriptRun(int ExitCode, string Output, string Error)
{
    public static async Task<ScriptRun> RunAsync(string script, IReadOnlyDictionary<string, string> environment, params string[] arguments)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentNullException.ThrowIfNull(arguments);
        var start = new ProcessStartInfo("bash")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = RepoFiles.Path,
        };
        start.ArgumentList.Add(RepoFiles.File("infra", "scripts", script));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        return await RunAsync(start, script);
    }

    /// <summary>Runs <paramref name="start"/> (bash, output redirected) with no input, at most 60 s.</summary>
    public static async Task<ScriptRun> RunAsync(ProcessStartInfo start, string name)
    {
        var run = await ExternalTool.RunAsync(start, name);
        return new ScriptRun(run.ExitCode, run.Output, run.Error);
    }
}
