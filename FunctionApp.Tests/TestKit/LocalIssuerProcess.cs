using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// The real local token issuer (tools/LocalIssuer's build output, built with the tests) as a process on a port the OS
/// picks (<c>--port 0</c>), read from its ready line; killed on dispose. Fails, never skips, when it cannot start.
/// </summary>
public sealed partial class LocalIssuerProcess : IAsyncDisposable
{
    /// <summary>The local tenant the issuer serves.</summary>
    public const string TenantId = "7a1e0000-0000-4000-8000-000000000001";

    /// <summary>The local app registration's client id: the audience of every token.</summary>
    public const string Audience = "7a1e0000-0000-4000-8000-000000000002";

    /// <summary>The local app registration's Application ID URI.</summary>
    public const string AppIdUri = "api://widget-signing-local";

    /// <summary>The default local caller's object id.</summary>
    public const string DefaultCaller = "7a1e0000-0000-4000-8000-00000000000c";

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(30);

    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private LocalIssuerProcess(Process process, int port)
    {
        _process = process;
        Port = port;
    }

    /// <summary>The loopback port it listens on.</summary>
    public int Port { get; private set; }

    /// <summary>The authority and issuer: <c>http://127.0.0.1:port/{tenant}/v2.0</c>.</summary>
    public string Authority => $"http://127.0.0.1:{Port}/{TenantId}/v2.0";

    /// <summary>The OpenID metadata document's address.</summary>
    public string MetadataAddress => $"{Authority}/.well-known/openid-configuration";

    /// <summary>The client-credentials token endpoint.</summary>
    public Uri TokenEndpoint => new($"http://127.0.0.1:{Port}/{TenantId}/oauth2/v2.0/token");

    /// <summary>Everything the issuer printed so far, for failure messages.</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    /// <summary>Starts the issuer with <paramref name="arguments"/> (default <c>--port 0</c>) and waits for its ready line.</summary>
    public static async Task<LocalIssuerProcess> StartAsync(params string[] arguments)
    {
        var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar)).Parent!.Name;
        var dll = Path.Combine(RepoRoot.Path, "tools", "LocalIssuer", "bin", configuration, "net10.0", "LocalIssuer.dll");
        if (!File.Exists(dll))
        {
            throw new FileNotFoundException($"{dll} is missing: build the tests (they build tools/LocalIssuer) or the solution first.", dll);
        }

        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(dll);
        foreach (var argument in arguments.Length == 0 ? ["--port", "0"] : arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var ready = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start dotnet LocalIssuer.dll.");
        var issuer = new LocalIssuerProcess(process, 0);
        process.OutputDataReceived += (_, e) => issuer.Append(e.Data, ready);
        process.ErrorDataReceived += (_, e) => issuer.Append(e.Data, null);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        var exited = process.WaitForExitAsync();
        var first = await Task.WhenAny(ready.Task, exited, Task.Delay(StartTimeout));
        if (first != ready.Task)
        {
            await issuer.DisposeAsync();
            throw new InvalidOperationException($"LocalIssuer did not report ready within {StartTimeout.TotalSeconds} s (exited: {process.HasExited}). Output:\n{issuer.Output}");
        }

        issuer.Port = await ready.Task;
        return issuer;
    }

    /// <summary>Whether the issuer process is still running.</summary>
    public bool IsRunning => !_process.HasExited;

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }

    private void Append(string? line, TaskCompletionSource<int>? ready)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            _output.AppendLine(line);
        }

        if (ready is not null && ReadyLine().Match(line) is { Success: true } match)
        {
            ready.TrySetResult(int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture));
        }
    }

    [GeneratedRegex(@"^LocalIssuer ready: http://127\.0\.0\.1:(\d+)/")]
    private static partial Regex ReadyLine();
}
