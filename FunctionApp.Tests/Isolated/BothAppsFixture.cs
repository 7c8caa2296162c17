using FunctionApp.Tests.Hosting;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Both apps at once, each in its local host as its own process on a free port, with the same key and settings:
/// the in-process app's build output in tools/LocalHost and the published isolated app in tools/WorkerHost.
/// </summary>
public sealed class BothAppsFixture : IAsyncLifetime
{
    private readonly AzuriteFixture _azurite = new IsolatedQueueTests.NewerApiAzuriteFixture();
    private IsolatedAppHost? _isolated;
    private LocalHostProcess? _inProcess;

    public HttpClient Isolated { get; private set; } = null!;

    public HttpClient InProcess { get; private set; } = null!;

    /// <summary>What the isolated app's host (and its worker) printed so far.</summary>
    public string IsolatedOutput => _isolated?.Output ?? string.Empty;

    /// <summary>The isolated app's worker's own HTTP port (for requests that bypass the host).</summary>
    public int IsolatedWorkerPort => _isolated!.WorkerHttpPort();

    /// <summary>What the in-process app's host printed so far.</summary>
    public string InProcessOutput => _inProcess?.Output ?? string.Empty;

    public async Task InitializeAsync()
    {
        await _azurite.InitializeAsync();
        _isolated = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString));
        var inProcessSettings = new Dictionary<string, string>
        {
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
            ["Auth:Disabled"] = "true",
            ["AzureWebJobsStorage"] = _azurite.ConnectionString,
            ["WidgetStorage"] = _azurite.ConnectionString,
        };

        // The same receivers as the isolated app, from the same sample.
        foreach (var (name, value) in IsolatedAppHost.Settings(storage: null).Where(s => s.Key.StartsWith("Signing:LocalKeys:", StringComparison.Ordinal)))
        {
            inProcessSettings[name] = value;
        }

        _inProcess = LocalHostProcess.Start(Hosting.AppBuildOutput.Path, inProcessSettings);
        var inProcessAddress = await _inProcess.ReadyAsync(TimeSpan.FromSeconds(90));
        Isolated = new HttpClient { BaseAddress = _isolated.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        InProcess = new HttpClient { BaseAddress = inProcessAddress, Timeout = TimeSpan.FromSeconds(60) };
    }

    public async Task DisposeAsync()
    {
        Isolated?.Dispose();
        InProcess?.Dispose();
        if (_isolated is not null)
        {
            await _isolated.DisposeAsync();
        }

        if (_inProcess is not null)
        {
            await _inProcess.DisposeAsync();
        }

        await _azurite.DisposeAsync();
    }
}
