using System.Diagnostics;
using System.Text;
using System.Text.Json;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// A throw-away copy of the repository's start script (scripts/start.mjs, package.json, both settings samples, an empty
/// FunctionApp/ and FunctionApp.Isolated/, and a link to the real node_modules so the real Azurite runs) with a PATH
/// holding only <c>node</c> and, if asked, a fake <c>func</c> or <c>dotnet</c>. Core Tools are never needed. Azurite gets free loopback ports; anything the script left
/// running is killed on dispose, after the test has looked. POSIX only, like the repository's other script tests.
/// </summary>
public sealed class StartScriptSandbox : IAsyncDisposable
{
    private const string FakeFunc = """
        const fs = require("fs"), net = require("net");
        // Fake Core Tools (or fake dotnet running the local host) for StartScriptTests.
        // FAKE_FUNC_MODE: exit:<code> | signal-parent:<SIGNAL>. As dotnet, "build ..." is appended to FAKE_DOTNET_BUILDS
        // and exits FAKE_DOTNET_BUILD_EXIT (0 unless set), printing a compiler-style error first when that is not 0;
        // "dotnet .../LocalIssuer.dll --port N" listens on N until signalled, writing its arguments and the signal to
        // FAKE_ISSUER_RECORD.
        if (process.argv[2] === "build") {
          fs.appendFileSync(process.env.FAKE_DOTNET_BUILDS, process.argv.slice(2).join(" ") + "\n");
          const code = Number(process.env.FAKE_DOTNET_BUILD_EXIT ?? "0");
          if (code !== 0) console.log(`${process.argv[3]} : error CS0000: fake build failure`);
          process.exit(code);
        }
        if ((process.argv[2] ?? "").endsWith("LocalIssuer.dll")) {
          const issuerRecord = { args: process.argv.slice(2), signal: null };
          const saveIssuer = () => fs.writeFileSync(process.env.FAKE_ISSUER_RECORD, JSON.stringify(issuerRecord));
          net.createServer((s) => s.destroy()).listen(Number(process.argv[process.argv.indexOf("--port") + 1]), "127.0.0.1", saveIssuer);
          for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => { issuerRecord.signal = s; saveIssuer(); process.exit(0); });
          return;
        }
        const ports = ["AZURITE_BLOB_PORT", "AZURITE_QUEUE_PORT", "AZURITE_TABLE_PORT"].map(n => Number(process.env[n]));
        const listening = p => new Promise(r => { const s = net.connect({ host: "127.0.0.1", port: p }); s.on("connect", () => { s.destroy(); r(true); }); s.on("error", () => r(false)); });
        const record = { cwd: process.cwd(), args: process.argv.slice(2), azuriteListening: false, signal: null, widgetStorage: process.env.WidgetStorage ?? null,
          authAuthority: process.env["Auth:Authority"] ?? null, issuerListening: false, grants: null,
          otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null, otlpProtocol: process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? null,
          metricExportInterval: process.env.OTEL_METRIC_EXPORT_INTERVAL ?? null };
        const save = () => fs.writeFileSync(process.env.FAKE_FUNC_RECORD, JSON.stringify(record));
        (async () => {
          record.azuriteListening = (await Promise.all(ports.map(listening))).every(x => x);
          record.issuerListening = await listening(Number(process.env.ISSUER_PORT));
          try {
            const { TableClient } = require("@azure/data-tables");
            const table = TableClient.fromConnectionString(`DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${process.env.AZURITE_ACCOUNT_KEY};TableEndpoint=http://127.0.0.1:${process.env.AZURITE_TABLE_PORT}/devstoreaccount1;`, "callergrants", { allowInsecureConnection: true });
            const grants = [];
            for await (const e of table.listEntities()) grants.push({ caller: e.partitionKey, receiver: e.rowKey, grantedBy: e.GrantedBy ?? null });
            record.grants = grants;
          } catch {
            // no table (or no Azurite): grants stays null
          }
          save();
          const [mode, value] = process.env.FAKE_FUNC_MODE.split(":");
          if (mode === "exit") process.exit(Number(value));
          for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => { record.signal = s; save(); process.exit(0); });
          setInterval(() => {}, 1000);
          process.kill(process.ppid, value); // as a terminal's Ctrl-C or a service manager's stop would
        })();
        """;

    private readonly string _bin;
    private readonly string _node;
    private readonly List<int> _pids = [];
    private string _mode = "none";
    private int _buildExitCode;

    private StartScriptSandbox(bool withAzurite, bool funcInNodeModules)
    {
        _node = FindNode();
        Root = Directory.CreateTempSubdirectory("start-script-").FullName;
        _bin = Path.Combine(Root, "bin");
        Directory.CreateDirectory(_bin);
        Directory.CreateDirectory(Path.Combine(Root, "scripts"));
        Directory.CreateDirectory(Path.Combine(Root, "FunctionApp"));
        Directory.CreateDirectory(Path.Combine(Root, "FunctionApp.Isolated"));
        File.Copy(RepoFiles.File("scripts", "start.mjs"), Path.Combine(Root, "scripts", "start.mjs"));
        File.Copy(RepoFiles.File("scripts", "azurite.mjs"), Path.Combine(Root, "scripts", "azurite.mjs"));
        File.Copy(RepoFiles.File("scripts", "grants.mjs"), Path.Combine(Root, "scripts", "grants.mjs"));
        File.Copy(RepoFiles.File("scripts", "local-tools.mjs"), Path.Combine(Root, "scripts", "local-tools.mjs"));
        File.Copy(RepoFiles.File("package.json"), Path.Combine(Root, "package.json"));
        File.Copy(RepoFiles.File("local.settings.sample.json"), InProcessSample);
        File.Copy(RepoFiles.File("FunctionApp.Isolated", "local.settings.sample.json"), IsolatedSample);
        File.CreateSymbolicLink(Path.Combine(_bin, "node"), _node);
        if (withAzurite)
        {
            var modules = RepoFiles.File("node_modules");
            if (!Directory.Exists(Path.Combine(modules, "azurite")))
            {
                throw new InvalidOperationException($"Azurite is not installed in {modules}. Run 'npm ci' in {RepoFiles.Path}; .ci/run does.");
            }

            if (funcInNodeModules)
            {
                // A node_modules of its own: the real Azurite and Tables SDK linked in, and .bin/ for a fake func as npm would link it.
                Directory.CreateDirectory(Path.Combine(Root, "node_modules", ".bin"));
                Directory.CreateSymbolicLink(Path.Combine(Root, "node_modules", "azurite"), Path.Combine(modules, "azurite"));
                Directory.CreateSymbolicLink(Path.Combine(Root, "node_modules", "@azure"), Path.Combine(modules, "@azure"));
            }
            else
            {
                Directory.CreateSymbolicLink(Path.Combine(Root, "node_modules"), modules);
            }
        }

        Ports = [Loopback.FreePort(), Loopback.FreePort(), Loopback.FreePort()];
        HttpPort = Loopback.FreePort();
        IssuerPort = Loopback.FreePort();
    }

    /// <summary>The local issuer's port the script is told to use (ISSUER_PORT).</summary>
    public int IssuerPort { get; }

    /// <summary>Where the fake dotnet, run as the local issuer, writes its arguments and the signal that stopped it.</summary>
    public string IssuerRecord => Path.Combine(Root, "issuer-record.json");

    /// <summary>The HTTP port the script is told to use (HTTP_PORT).</summary>
    public int HttpPort { get; }

    /// <summary>The sandbox's repository root.</summary>
    public string Root { get; }

    /// <summary>Azurite's blob, queue and table ports for this sandbox.</summary>
    public IReadOnlyList<int> Ports { get; }

    /// <summary>The in-process app's settings (<c>--inprocess</c>), copied from <see cref="InProcessSample"/>.</summary>
    public string InProcessSettings => Path.Combine(Root, "FunctionApp", "local.settings.json");

    public string InProcessSample => Path.Combine(Root, "local.settings.sample.json");

    /// <summary>The isolated app's settings (the default), copied from <see cref="IsolatedSample"/>.</summary>
    public string IsolatedSettings => Path.Combine(Root, "FunctionApp.Isolated", "local.settings.json");

    public string IsolatedSample => Path.Combine(Root, "FunctionApp.Isolated", "local.settings.sample.json");

    /// <summary>Environment variables set for the next run after the sandbox's own (ports, fakes), so they can override them.</summary>
    public Dictionary<string, string> Environment { get; } = [];

    public string AzuriteLocation => Path.Combine(Root, ".azurite");

    /// <summary>Where the fake dotnet writes each <c>dotnet build</c> it was asked for, one per line.</summary>
    public string DotnetBuilds => Path.Combine(Root, "dotnet-builds.txt");

    public static StartScriptSandbox Create(bool withAzurite = true, bool funcInNodeModules = false) => new(withAzurite, funcInNodeModules);

    /// <summary>
    /// Puts a fake <c>dotnet</c> on the sandbox's PATH: <c>dotnet build</c> is recorded and exits <paramref name="buildExitCode"/>;
    /// anything else (the local host) behaves as the fake func in <paramref name="mode"/>.
    /// </summary>
    public void AddFakeDotnet(string mode, int buildExitCode = 0)
    {
        WriteFake(Path.Combine(_bin, "dotnet"));
        _mode = mode;
        _buildExitCode = buildExitCode;
    }

    /// <summary>Puts a fake <c>func</c> in the sandbox's node_modules/.bin, where npm links the optional Core Tools package.</summary>
    public void AddFakeFuncInNodeModules(string mode)
    {
        WriteFake(Path.Combine(Root, "node_modules", ".bin", "func"));
        _mode = mode;
    }

    /// <summary>Puts a fake <c>func</c> on the sandbox's PATH; <paramref name="mode"/> is exit:&lt;code&gt; or signal-parent:&lt;SIGNAL&gt;.</summary>
    public void AddFakeFunc(string mode)
    {
        if (OperatingSystem.IsWindows())
        {
            throw new PlatformNotSupportedException("The fake func is a POSIX executable script.");
        }

        WriteFake(Path.Combine(_bin, "func"));
        _mode = mode;
    }

    private void WriteFake(string path)
    {
        if (OperatingSystem.IsWindows())
        {
            throw new PlatformNotSupportedException("The fakes are POSIX executable scripts.");
        }

        File.WriteAllText(path, $"#!{_node}\n{FakeFunc.Replace("\r\n", "\n", StringComparison.Ordinal)}\n");
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
    }

    /// <summary>Runs <c>node scripts/start.mjs</c> with <paramref name="arguments"/> (none: the isolated app; <c>--inprocess</c>).</summary>
    public async Task<StartScriptRun> RunAsync(params string[] arguments)
    {
        var record = Path.Combine(Root, "func-record.json");
        var start = new ProcessStartInfo(_node)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = Root,
        };
        start.ArgumentList.Add(Path.Combine(Root, "scripts", "start.mjs"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["PATH"] = _bin;
        start.Environment["AZURITE_BLOB_PORT"] = Ports[0].ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["AZURITE_QUEUE_PORT"] = Ports[1].ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["AZURITE_TABLE_PORT"] = Ports[2].ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["FAKE_FUNC_RECORD"] = record;
        start.Environment["FAKE_FUNC_MODE"] = _mode;
        start.Environment["FAKE_DOTNET_BUILDS"] = DotnetBuilds;
        start.Environment["FAKE_DOTNET_BUILD_EXIT"] = _buildExitCode.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["HTTP_PORT"] = HttpPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["ISSUER_PORT"] = IssuerPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["FAKE_ISSUER_RECORD"] = IssuerRecord;
        start.Environment["AZURITE_ACCOUNT_KEY"] = AzuriteFixture.AccountKey;
        // Telemetry settings of the machine running the tests are not the test's.
        foreach (var name in new[] { "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_METRIC_EXPORT_INTERVAL", "WIDGET_OTLP", "DASHBOARD_OTLP_HTTP_PORT", "DASHBOARD_OTLP_GRPC_PORT" })
        {
            start.Environment.Remove(name);
        }

        foreach (var (name, value) in Environment)
        {
            start.Environment[name] = value;
        }

        var output = new StringBuilder();
        var error = new StringBuilder();
        using var process = new Process { StartInfo = start, EnableRaisingEvents = true };
        var exited = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var outputClosed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var errorClosed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        process.Exited += (_, _) => exited.TrySetResult();
        process.OutputDataReceived += (_, e) => Append(output, e.Data, outputClosed);
        process.ErrorDataReceived += (_, e) => Append(error, e.Data, errorClosed);
        process.Start();
        _pids.Add(process.Id);
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        // The script's own exit, not the end of its output: an Azurite it left running would hold the pipe open.
        if (await Task.WhenAny(exited.Task, Task.Delay(TimeSpan.FromSeconds(90))) != exited.Task)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"start.mjs did not exit within 90 s. Output:\n{Text(output)}\n{Text(error)}");
        }

        // Then both pipes to their end: the script's last stderr line (a refusal it prints just before exiting) can still be
        // in flight when its exit is seen. Bounded, since an Azurite it left running would hold them open.
        await Task.WhenAny(Task.WhenAll(outputClosed.Task, errorClosed.Task), Task.Delay(TimeSpan.FromSeconds(5)));
        var run = new StartScriptRun(
            process.ExitCode,
            Text(output),
            Text(error),
            File.Exists(record) ? JsonSerializer.Deserialize<FakeFuncRecord>(await File.ReadAllTextAsync(record), new JsonSerializerOptions(JsonSerializerDefaults.Web)) : null);
        if (run.AzuritePid is { } pid)
        {
            _pids.Add(pid);
        }

        if (run.IssuerPid is { } issuerPid)
        {
            _pids.Add(issuerPid);
        }

        return run;
    }

    /// <summary>Whether anything accepts connections on one of this sandbox's Azurite ports.</summary>
    public async Task<bool> AnyPortListeningAsync()
    {
        foreach (var port in Ports)
        {
            if (await Loopback.AcceptsAsync(port))
            {
                return true;
            }
        }

        return false;
    }

    public static bool IsRunning(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    public ValueTask DisposeAsync()
    {
        foreach (var pid in _pids.Where(IsRunning))
        {
            using var process = Process.GetProcessById(pid);
            process.Kill(entireProcessTree: true);
        }

        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
            // A temp folder left behind is harmless.
        }

        return ValueTask.CompletedTask;
    }

    private static string FindNode()
    {
        foreach (var directory in (System.Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            var candidate = Path.Combine(directory, "node");
            if (File.Exists(candidate))
            {
                // The real binary, so a symlink to it and a shebang naming it work from any PATH.
                return new FileInfo(candidate).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? candidate;
            }
        }

        throw new InvalidOperationException("node is not on the PATH: the start script and Azurite need Node.js 20+.");
    }

    private static void Append(StringBuilder text, string? line, TaskCompletionSource? closed)
    {
        if (line is null)
        {
            closed?.TrySetResult();
            return;
        }

        lock (text)
        {
            text.AppendLine(line);
        }
    }

    private static string Text(StringBuilder text)
    {
        lock (text)
        {
            return text.ToString();
        }
    }
}
