using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Azurite, an OTLP/HTTP receiver on loopback and the published isolated app in tools/WorkerHost exporting to it (the
/// standard OTEL_* variables, short export intervals). A failure to start any of them fails the tests (never a skip).
/// </summary>
public class IsolatedTelemetryFixture : IAsyncLifetime
{
    // The isolated graph's storage SDKs speak a service version newer than Azurite serves (see IsolatedQueueTests).
    private readonly AzuriteFixture _azurite = new IsolatedQueueTests.NewerApiAzuriteFixture();
    private IsolatedAppHost? _host;

    public IsolatedAppHost Host => _host ?? throw new InvalidOperationException("the isolated host did not start");

    public AzuriteFixture Azurite => _azurite;

    public OtlpReceiver Receiver { get; private set; } = null!;

    public HttpClient Client { get; private set; } = null!;

    /// <summary>App settings over the sample's (none here).</summary>
    protected virtual IReadOnlyDictionary<string, string> Overrides { get; } = new Dictionary<string, string>();

    public async Task InitializeAsync()
    {
        await _azurite.InitializeAsync();
        Receiver = await OtlpReceiver.StartAsync();
        var environment = new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = Receiver.Endpoint.ToString().TrimEnd('/'),
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            ["OTEL_BSP_SCHEDULE_DELAY"] = "200",
            ["OTEL_BLRP_SCHEDULE_DELAY"] = "200",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "500",
        };
        _host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, Overrides), environment: environment);
        Client = new HttpClient { BaseAddress = _host.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
    }

    public async Task DisposeAsync()
    {
        Client?.Dispose();
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }

        if (Receiver is not null)
        {
            await Receiver.DisposeAsync();
        }

        await _azurite.DisposeAsync();
    }
}
