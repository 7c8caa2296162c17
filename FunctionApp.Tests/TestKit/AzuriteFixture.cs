using System.Diagnostics;
using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Starts Azurite (the Azure Storage emulator, from the repo's node_modules) on free loopback ports with a temporary
/// workspace, and stops it at the end. If it cannot start, every test that uses it fails with the reason: none is skipped.
/// </summary>
public class AzuriteFixture : IAsyncLifetime
{
    /// <summary>The emulator's well-known development account (public, documented by Microsoft; not a secret).</summary>
    public const string AccountName = "devstoreaccount1";

    public const string AccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(30);

    private readonly StringBuilder _output = new();
    private Process? _process;
    private string? _location;

    public string ConnectionString { get; private set; } = string.Empty;

    /// <summary>The queue service's URI (<c>http(s)://127.0.0.1:port/devstoreaccount1</c>).</summary>
    public Uri QueueServiceUri { get; private set; } = null!;

    /// <summary>The blob service's URI.</summary>
    public Uri BlobServiceUri { get; private set; } = null!;

    /// <summary>The table service's URI.</summary>
    public Uri TableServiceUri { get; private set; } = null!;

    /// <summary>http, or https where a subclass serves TLS.</summary>
    protected virtual string Scheme => "http";

    /// <summary>Arguments a subclass adds (e.g. OAuth mode); <paramref name="workspace"/> is the emulator's temporary folder.</summary>
    protected virtual IEnumerable<string> ExtraArguments(string workspace) => [];

    public async Task InitializeAsync()
    {
        var azurite = Path.Combine(RepoRoot.Path, "node_modules", ".bin", "azurite");
        if (!File.Exists(azurite))
        {
            throw new InvalidOperationException($"Azurite is not installed ({azurite} is missing). Run 'npm ci' in {RepoRoot.Path}; .ci/run does.");
        }

        var blobPort = Loopback.FreePort();
        var queuePort = Loopback.FreePort();
        var tablePort = Loopback.FreePort();
        _location = Directory.CreateTempSubdirectory("azurite-").FullName;

        var start = new ProcessStartInfo(azurite)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[]
        {
            // --disableTelemetry: otherwise Azurite tries to reach an outside telemetry endpoint. No --loose and no
            // --skipApiVersionCheck: the storage SDK speaks an API version Azurite serves strictly.
            "--silent", "--disableTelemetry", "--location", _location,
            "--blobHost", "127.0.0.1", "--blobPort", blobPort.ToString(System.Globalization.CultureInfo.InvariantCulture),
            "--queueHost", "127.0.0.1", "--queuePort", queuePort.ToString(System.Globalization.CultureInfo.InvariantCulture),
            "--tableHost", "127.0.0.1", "--tablePort", tablePort.ToString(System.Globalization.CultureInfo.InvariantCulture),
        }.Concat(ExtraArguments(_location)))
        {
            start.ArgumentList.Add(argument);
        }

        _process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {azurite}.");
        _process.OutputDataReceived += (_, e) => Append(e.Data);
        _process.ErrorDataReceived += (_, e) => Append(e.Data);
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();

        var deadline = Stopwatch.StartNew();
        while (!(await Loopback.AcceptsAsync(blobPort) && await Loopback.AcceptsAsync(queuePort) && await Loopback.AcceptsAsync(tablePort)))
        {
            if (_process.HasExited)
            {
                throw new InvalidOperationException($"Azurite exited with code {_process.ExitCode} before listening. Output:\n{Output()}");
            }

            if (deadline.Elapsed > StartTimeout)
            {
                throw new InvalidOperationException($"Azurite did not listen on 127.0.0.1:{blobPort} (blob), :{queuePort} (queue) and :{tablePort} (table) within {StartTimeout.TotalSeconds} s. Output:\n{Output()}");
            }

            await Task.Delay(100);
        }

        ConnectionString =
            $"DefaultEndpointsProtocol={Scheme};AccountName={AccountName};AccountKey={AccountKey};" +
            $"BlobEndpoint={Scheme}://127.0.0.1:{blobPort}/{AccountName};QueueEndpoint={Scheme}://127.0.0.1:{queuePort}/{AccountName};" +
            $"TableEndpoint={Scheme}://127.0.0.1:{tablePort}/{AccountName};";
        QueueServiceUri = new Uri($"{Scheme}://127.0.0.1:{queuePort}/{AccountName}");
        BlobServiceUri = new Uri($"{Scheme}://127.0.0.1:{blobPort}/{AccountName}");
        TableServiceUri = new Uri($"{Scheme}://127.0.0.1:{tablePort}/{AccountName}");
    }

    public async Task DisposeAsync()
    {
        if (_process is not null)
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                await _process.WaitForExitAsync();
            }

            _process.Dispose();
        }

        if (_location is not null)
        {
            try
            {
                Directory.Delete(_location, recursive: true);
            }
            catch (IOException)
            {
                // A temp folder left behind is harmless.
            }
        }
    }

    private void Append(string? line)
    {
        if (line is not null)
        {
            lock (_output)
            {
                _output.AppendLine(line);
            }
        }
    }

    private string Output()
    {
        lock (_output)
        {
            return _output.Length == 0 ? "(none)" : _output.ToString();
        }
    }
}
