using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// One Azurite and one isolated app in tools/WorkerHost (the published app, the vectors' key), shared by a test class;
/// a failure to start either fails the tests that use it (never a skip).
/// </summary>
public class IsolatedHostFixture : IAsyncLifetime
{
    private readonly AzuriteFixture _azurite = new IsolatedQueueTests.NewerApiAzuriteFixture();
    private IsolatedAppHost? _host;

    public IsolatedAppHost Host => _host ?? throw new InvalidOperationException("the isolated host did not start");

    public AzuriteFixture Azurite => _azurite;

    /// <summary>A client for the host's base address; no retries, no decompression, nothing between the test and the socket.</summary>
    public HttpClient Client { get; private set; } = null!;

    /// <summary>Settings a derived fixture sets over the sample's (none here).</summary>
    protected virtual IReadOnlyDictionary<string, string>? Overrides => null;

    public async Task InitializeAsync()
    {
        await _azurite.InitializeAsync();
        _host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, Overrides));
        Client = new HttpClient { BaseAddress = _host.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
    }

    public async Task DisposeAsync()
    {
        Client?.Dispose();
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }

        await _azurite.DisposeAsync();
    }
}
