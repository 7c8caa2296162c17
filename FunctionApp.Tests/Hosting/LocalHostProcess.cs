using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// tools/LocalHost run as its own OS process (dotnet LocalHost.dll), as npm start runs it; its output is kept, the
/// process is killed on dispose if still running.
/// </summary>
public sealed partial class LocalHostProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly HostProcessOutput _output = new(ReadyLine());
    private readonly StringBuilder _error = new();

    private LocalHostProcess(Process process) => _process = process;

    public static string Dll { get; } = Path.Combine(RepoRoot.Path, "tools", "LocalHost", "bin", AppBuildOutput.Configuration, "net8.0", "LocalHost.dll");

    public int Pid => _process.Id;

    public string Output => _output.Text;

    public string Error
    {
        get
        {
            lock (_error)
            {
                return _error.ToString();
            }
        }
    }

    public static LocalHostProcess Start(string appRoot, IReadOnlyDictionary<string, string> environment) => Start(Dll, appRoot, environment);

    /// <summary>Starts the local host from <paramref name="hostDll"/> (a doctored copy of its output, for instance).</summary>
    public static LocalHostProcess Start(string hostDll, string appRoot, IReadOnlyDictionary<string, string> environment) =>
        Start(hostDll, appRoot, environment, []);

    /// <summary>Starts the local host with <paramref name="arguments"/> after its usual ones (<c>--platform-auth</c>, for instance).</summary>
    public static LocalHostProcess Start(string hostDll, string appRoot, IReadOnlyDictionary<string, string> environment, IReadOnlyList<string> arguments)
    {
        if (!File.Exists(hostDll))
        {
            throw new InvalidOperationException($"{hostDll} is missing: build tools/LocalHost ({AppBuildOutput.Configuration}).");
        }

        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { hostDll, "--app", appRoot, "--settings", Path.Combine(RepoRoot.Path, "local.settings.sample.json"), "--port", "0" }.Concat(arguments))
        {
            start.ArgumentList.Add(argument);
        }

        // The sample's audit store is Azurite on the default port, which these tests do not start: unless a test sets
        // the store up itself, the development-only switch turns it off (event 7001 is still logged).
        if (!environment.Keys.Any(k => k.StartsWith("Audit__", StringComparison.Ordinal)))
        {
            start.Environment["Audit__Disabled"] = "true";
        }

        foreach (var (key, value) in environment)
        {
            start.Environment[key] = value;
        }

        var host = new LocalHostProcess(new Process { StartInfo = start });
        host._process.OutputDataReceived += (_, e) => host._output.Add(e.Data);
        host._process.ErrorDataReceived += (_, e) =>
        {
            lock (host._error)
            {
                host._error.AppendLine(e.Data);
            }
        };
        host._process.Start();
        host._process.BeginOutputReadLine();
        host._process.BeginErrorReadLine();
        return host;
    }

    /// <summary>The base URL from the ready line, once the host printed it.</summary>
    public async Task<Uri> ReadyAsync(TimeSpan timeout)
    {
        var exited = _process.WaitForExitAsync();
        var first = await Task.WhenAny(_output.Ready, exited, Task.Delay(timeout));
        return first == _output.Ready
            ? new Uri(await _output.Ready)
            : throw new Xunit.Sdk.XunitException($"LocalHost was not ready ({(first == exited ? $"exited {_process.ExitCode}" : "timed out")}):\n{Output}\n{Error}");
    }

    public async Task<int> ExitCodeAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        await _process.WaitForExitAsync(cancel.Token);
        return _process.ExitCode;
    }

    public async ValueTask DisposeAsync()
    {
        await HostProcessOutput.StopAsync(_process);
    }

    [GeneratedRegex(@"^LocalHost ready: (?<url>http://\S+)/api/")]
    private static partial Regex ReadyLine();
}
