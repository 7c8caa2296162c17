using System.Diagnostics;
using System.Text.RegularExpressions;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated app as the host runs it: the app is <b>published</b> once per test run (dotnet publish, as a deployment
/// does), and tools/WorkerHost starts it as a child process and speaks the language-worker protocol to it (StartStream,
/// WorkerInit, FunctionsMetadata, FunctionLoad, Invocation), forwarding HTTP over a real socket to the worker's
/// ASP.NET Core endpoint and queue messages through the official Storage Queues extension. The tests talk to the host
/// over loopback like any client. Output is kept; the process tree is killed on dispose.
/// </summary>
public sealed partial class IsolatedAppHost : IAsyncDisposable
{
    private static readonly SemaphoreSlim PublishLock = new(1, 1);
    private static string? _published;

    private readonly Process _process;
    private readonly HostProcessOutput _output = new(ReadyLine());
    private readonly string _settingsFile;

    private IsolatedAppHost(Process process, string settingsFile)
    {
        _process = process;
        _settingsFile = settingsFile;
    }

    public static string Dll { get; } = Path.Combine(RepoRoot.Path, "tools", "WorkerHost", "bin", Hosting.AppBuildOutput.Configuration, "net10.0", "WorkerHost.dll");

    /// <summary>The base address, e.g. <c>http://127.0.0.1:41234</c>.</summary>
    public Uri BaseAddress { get; private set; } = null!;

    /// <summary>The host's process id (the worker is its child).</summary>
    public int Pid => _process.Id;

    public string Output => _output.Text;

    /// <summary>Whether the host process has ended (crashed or stopped).</summary>
    public bool HasExited => _process.HasExited;

    /// <summary>
    /// The isolated app's local settings sample with the known-answer vectors' key, the development environment (where a
    /// local key is accepted) and, when given, Azurite for both storage connections.
    /// </summary>
    public static Dictionary<string, string> Settings(string? storage, IReadOnlyDictionary<string, string>? overrides = null)
    {
        var values = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "local.settings.sample.json")))["Values"]!
            .Children<JProperty>()
            .ToDictionary(p => p.Name, p => (string)p.Value!, StringComparer.Ordinal);
        values["Signing:LocalKey"] = Vector.KeyBase64;
        values["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        values["Auth:Disabled"] = "true";
        if (storage is not null)
        {
            values["AzureWebJobsStorage"] = storage;
            values["WidgetStorage"] = storage;
        }
        else
        {
            // No storage, no audit store: the development-only switch, as a developer without Azurite would set it.
            values["Audit:Disabled"] = "true";
        }

        foreach (var (key, value) in overrides ?? new Dictionary<string, string>())
        {
            values[key] = value;
        }

        return values;
    }

    /// <summary>
    /// Publishes the app (once per run), starts the host on a free port and waits for its ready line.
    /// <paramref name="environment"/> is set on the host process, which the worker inherits, and wins over settings
    /// (as the machine's environment does with func start); a null value removes an inherited variable.
    /// </summary>
    public static async Task<IsolatedAppHost> StartAsync(
        IReadOnlyDictionary<string, string> settings,
        TimeSpan? timeout = null,
        IReadOnlyDictionary<string, string?>? environment = null)
    {
        if (!File.Exists(Dll))
        {
            throw new InvalidOperationException($"{Dll} is missing: build tools/WorkerHost ({Hosting.AppBuildOutput.Configuration}).");
        }

        var app = await PublishAsync();
        var settingsFile = Path.Combine(Directory.CreateTempSubdirectory("isolated-settings-").FullName, "local.settings.json");
        await File.WriteAllTextAsync(settingsFile, new JObject { ["IsEncrypted"] = false, ["Values"] = JObject.FromObject(settings) }.ToString());

        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { Dll, "--app", app, "--settings", settingsFile, "--port", "0" })
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment ?? new Dictionary<string, string?>())
        {
            if (value is null)
            {
                start.Environment.Remove(name);
            }
            else
            {
                start.Environment[name] = value;
            }
        }

        var host = new IsolatedAppHost(new Process { StartInfo = start }, settingsFile);
        host._process.OutputDataReceived += (_, e) => host._output.Add(e.Data);
        host._process.ErrorDataReceived += (_, e) => host._output.Add(e.Data);
        host._process.Start();
        host._process.BeginOutputReadLine();
        host._process.BeginErrorReadLine();

        var exited = host._process.WaitForExitAsync();
        var first = await Task.WhenAny(host._output.Ready, exited, Task.Delay(timeout ?? TimeSpan.FromSeconds(90)));
        if (first != host._output.Ready)
        {
            var reason = first == exited ? $"exited {host._process.ExitCode}" : "timed out";
            await host.DisposeAsync();
            throw new Xunit.Sdk.XunitException($"WorkerHost was not ready ({reason}):\n{host.Output}");
        }

        host.BaseAddress = new Uri(await host._output.Ready);
        return host;
    }

    /// <summary>
    /// The TCP port the newest worker process listens on for the host's forwarded HTTP requests, read from /proc (its
    /// socket inodes, matched against the kernel's listening sockets): the host does not print it, since it is not for
    /// clients.
    /// </summary>
    public int WorkerHttpPort()
    {
        var worker = WorkerPids()[^1];
        var inodes = new HashSet<string>(StringComparer.Ordinal);
        foreach (var fd in Directory.EnumerateFiles($"/proc/{worker}/fd"))
        {
            var target = new FileInfo(fd).LinkTarget;
            if (target is not null && target.StartsWith("socket:[", StringComparison.Ordinal))
            {
                inodes.Add(target["socket:[".Length..^1]);
            }
        }

        // /proc/net/tcp{,6}: "sl local_address rem_address st ... inode"; state 0A is LISTEN, the port is hex after ':'.
        var ports = new[] { "/proc/net/tcp", "/proc/net/tcp6" }
            .SelectMany(File.ReadLines)
            .Skip(1)
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .Where(f => f.Length > 9 && f[3] == "0A" && inodes.Contains(f[9]))
            .Select(f => int.Parse(f[1][(f[1].IndexOf(':', StringComparison.Ordinal) + 1)..], System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture))
            .Distinct()
            .ToList();
        return ports.Count == 1 ? ports[0] : throw new InvalidOperationException($"the worker {worker} listens on {ports.Count} ports, not one: {string.Join(", ", ports)}");
    }

    /// <summary>The worker processes the host started (children of the host process), newest last.</summary>
    public IReadOnlyList<int> WorkerPids()
    {
        var children = new List<int>();
        foreach (var task in Directory.EnumerateDirectories($"/proc/{Pid}/task"))
        {
            var file = Path.Combine(task, "children");
            if (File.Exists(file))
            {
                children.AddRange(File.ReadAllText(file).Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(int.Parse));
            }
        }

        return children;
    }

    public async ValueTask DisposeAsync()
    {
        await HostProcessOutput.StopAsync(_process);
        File.Delete(_settingsFile);
    }

    /// <summary>dotnet publish of FunctionApp.Isolated into bin/&lt;configuration&gt;/publish, from the solution's build.</summary>
    private static async Task<string> PublishAsync()
    {
        await PublishLock.WaitAsync();
        try
        {
            if (_published is not null)
            {
                return _published;
            }

            var output = Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "bin", Hosting.AppBuildOutput.Configuration, "publish");
            var publish = await ExternalTool.RunAsync(
                "dotnet", "publish", Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "FunctionApp.Isolated.csproj"),
                "--configuration", Hosting.AppBuildOutput.Configuration, "--no-build", "--nologo", "--output", output);
            Assert.True(publish.ExitCode == 0, $"dotnet publish failed:\n{publish.Output}\n{publish.Error}");
            return _published = output;
        }
        finally
        {
            PublishLock.Release();
        }
    }

    [GeneratedRegex(@"^WorkerHost ready: (?<url>http://\S+)/api/")]
    private static partial Regex ReadyLine();
}
