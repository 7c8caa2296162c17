using System.Diagnostics;

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
        ArgumentNullException.ThrowIfNull(start);
        using var process = Process.Start(start) ?? throw new InvalidOperationException("bash did not start");
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{name} did not finish in 60 s.");
        }

        return new ScriptRun(process.ExitCode, await output, await error);
    }
}
