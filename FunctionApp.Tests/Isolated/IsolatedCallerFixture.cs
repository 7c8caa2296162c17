using Azure.Data.Tables;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Callers;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The published isolated app in tools/WorkerHost with authentication on: tokens from a local OpenID issuer
/// (<see cref="TestIssuer"/>), grants in Azurite's <c>callergrants</c> table (the default caller holds <c>default</c>
/// only). One app start for every test of a class; a failure to start any part fails them (never a skip).
/// </summary>
public sealed class IsolatedCallerFixture : IAsyncLifetime
{
    /// <summary>The one receiver the default caller is granted.</summary>
    public const string GrantedReceiver = "default";

    private readonly AzuriteFixture _azurite = new IsolatedQueueTests.NewerApiAzuriteFixture();
    private TestIssuer? _issuer;
    private IsolatedAppHost? _host;

    public IsolatedAppHost Host => _host ?? throw new InvalidOperationException("the isolated host did not start");

    public TestIssuer Issuer => _issuer ?? throw new InvalidOperationException("the issuer did not start");

    /// <summary>A client for the host's base address; nothing between the test and the socket.</summary>
    public HttpClient Client { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        await _azurite.InitializeAsync();
        _issuer = await TestIssuer.StartAsync();
        var table = new TableServiceClient(_azurite.ConnectionString).GetTableClient(GrantOptions.DefaultTableName);
        await table.CreateAsync();
        await table.AddEntityAsync(new TableEntity(TestIssuer.CallerObjectId, GrantedReceiver) { ["GrantedBy"] = "tests", ["GrantedAt"] = DateTimeOffset.UtcNow });
        _host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, new Dictionary<string, string>
        {
            ["Auth:Disabled"] = "false",
            ["Auth:Authority"] = _issuer.Authority,
            ["Auth:TenantId"] = TestIssuer.TenantId,
            ["Auth:Audience"] = TestIssuer.Audience,
            ["Auth:AppIdUri"] = TestIssuer.AppIdUri,
        }));
        Client = new HttpClient { BaseAddress = _host.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
    }

    /// <summary>Grants <paramref name="receivers"/> to the caller <paramref name="objectId"/> in the grants table.</summary>
    public async Task GrantAsync(string objectId, params string[] receivers)
    {
        var table = new TableServiceClient(_azurite.ConnectionString).GetTableClient(GrantOptions.DefaultTableName);
        foreach (var receiver in receivers)
        {
            await table.UpsertEntityAsync(new TableEntity(objectId, receiver) { ["GrantedBy"] = "tests", ["GrantedAt"] = DateTimeOffset.UtcNow });
        }
    }

    public async Task DisposeAsync()
    {
        Client?.Dispose();
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }

        if (_issuer is not null)
        {
            await _issuer.DisposeAsync();
        }

        await _azurite.DisposeAsync();
    }
}
