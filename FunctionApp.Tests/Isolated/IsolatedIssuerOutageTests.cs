using System.Net;
using System.Net.Http.Headers;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Callers.Entra;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The published isolated app whose token issuer cannot be reached (<c>Auth:Authority</c> on a closed loopback port): a
/// call is answered over the socket with 503 <c>auth-unavailable</c> and <c>Retry-After</c>, never a 401.
/// </summary>
public sealed class IsolatedIssuerOutageTests : IAsyncLifetime
{
    private readonly AzuriteFixture _azurite = new IsolatedQueueTests.NewerApiAzuriteFixture();
    private TestIssuer? _minter;
    private IsolatedAppHost? _host;
    private string _authority = null!;

    public async Task InitializeAsync()
    {
        await _azurite.InitializeAsync();
        _minter = await TestIssuer.StartAsync();
        _authority = $"http://127.0.0.1:{Loopback.FreePort()}/{TestIssuer.TenantId}/v2.0";
        _host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, new Dictionary<string, string>
        {
            ["Auth:Disabled"] = "false",
            ["Auth:Authority"] = _authority,
            ["Auth:TenantId"] = TestIssuer.TenantId,
            ["Auth:Audience"] = TestIssuer.Audience,
        }));
    }

    public async Task DisposeAsync()
    {
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }

        if (_minter is not null)
        {
            await _minter.DisposeAsync();
        }

        await _azurite.DisposeAsync();
    }

    [Fact]
    public async Task Sign_IssuerUnreachable_Is503AuthUnavailableWithRetryAfter()
    {
        // Arrange: a token of the right shape naming the unreachable authority.
        using var client = new HttpClient { BaseAddress = _host!.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        var token = _minter!.Mint(new TokenSpec { Claims = { ["iss"] = _authority } });
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign")
        {
            Content = new ByteArrayContent("{\"widgets\":[]}"u8.ToArray()) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);

        // Act
        using var response = await client.SendAsync(request);
        var problem = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        Assert.Equal("urn:widget-signing:problem:auth-unavailable", (string?)problem["type"]);
        Assert.Equal(EntraTokenValidator.FailureWindow, response.Headers.RetryAfter?.Delta);
        Assert.Empty(response.Headers.WwwAuthenticate);
    }
}
