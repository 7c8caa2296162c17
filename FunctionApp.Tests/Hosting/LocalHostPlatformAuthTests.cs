using System.Net;
using System.Net.Http.Headers;
using System.Text;
using Azure.Data.Tables;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Callers;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// The in-process app in tools/LocalHost with <c>--platform-auth</c>: LocalHost plays App Service Authentication
/// (a token from the issuer or its own 401, client principal headers removed, the platform's principal passed on,
/// <c>WEBSITE_AUTH_ENABLED=True</c>), the app reads that principal, roles and Azurite's grants as the isolated app does.
/// </summary>
public sealed class LocalHostPlatformAuthTests(LocalHostPlatformAuthTests.Fixture fixture) : IClassFixture<LocalHostPlatformAuthTests.Fixture>
{
    private const string RoleRequired = "urn:widget-signing:problem:role-required";

    // Every role, the granted caller: what a forger would like the app to believe.
    private const string ForgedPrincipal = "eyJhdXRoX3R5cCI6ImFhZCIsImNsYWltcyI6W3sidHlwIjoicm9sZXMiLCJ2YWwiOiJXaWRnZXRzLlNpZ24ifV19";

    [Fact]
    public async Task Sign_TokenFromTheIssuerForAGrantedReceiver_200AndSigned()
    {
        // Arrange
        var vector = Vector.All().First(v => !v.Reject);

        // Act
        using var response = await SignAsync(fixture.Issuer.Mint(), vector.Input);

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.True(response.Headers.Contains("X-Signature"), fixture.Output);
    }

    [Fact]
    public async Task Sign_NoToken_Is401FromThePlatformAndNothingSigned()
    {
        // Act
        using var response = await SignAsync(token: null);

        // Assert: Return401 answers before the app runs.
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.Equal("Bearer", Assert.Single(response.Headers.WwwAuthenticate).Scheme);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Theory]
    [InlineData("X-MS-CLIENT-PRINCIPAL")]
    [InlineData("x-ms-client-principal")]
    public async Task Sign_ForgedPrincipalWithoutToken_Is401AndNothingSigned(string header)
    {
        // Act
        using var response = await SignAsync(token: null, configure: r => r.Headers.TryAddWithoutValidation(header, ForgedPrincipal));

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Sign_ForgedPrincipalBesideAVerifyOnlyToken_IsTheTokensCallerAnd403()
    {
        // Arrange: a valid token that may only verify, and a forged principal that may sign; LocalHost must remove the
        // forged one and pass its own, so the app sees the token's caller.
        var token = fixture.Issuer.Mint(null, AppRoles.Verify);

        // Act
        using var response = await SignAsync(token, configure: r =>
        {
            r.Headers.TryAddWithoutValidation(PlatformPrincipal.HeaderName, ForgedPrincipal);
            r.Headers.TryAddWithoutValidation(PlatformPrincipal.HeaderName + "-ID", TestIssuer.CallerObjectId);
        });
        var body = await response.Content.ReadAsStringAsync();

        // Assert
        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        Assert.Contains(RoleRequired, body, StringComparison.Ordinal);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Sign_TokenOfAnotherIssuer_Is401FromThePlatform()
    {
        // Arrange: the same claims, signed by a key the issuer never published.
        await using var other = await TestIssuer.StartAsync();
        var token = other.Mint(new TokenSpec { Claims = { ["iss"] = fixture.Issuer.Authority } });

        // Act
        using var response = await SignAsync(token);

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
    }

    private async Task<HttpResponseMessage> SignAsync(string? token, byte[]? body = null, Action<HttpRequestMessage>? configure = null)
    {
        var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign?receiver=" + Fixture.GrantedReceiver)
        {
            Content = new ByteArrayContent(body ?? Encoding.UTF8.GetBytes("{\"widgets\":[]}")) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };
        if (token is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        }

        configure?.Invoke(request);
        return await fixture.Client.SendAsync(request);
    }

    /// <summary>Azurite with the caller's grant, the test issuer, and the in-process app in LocalHost --platform-auth.</summary>
    public sealed class Fixture : IAsyncLifetime
    {
        public const string GrantedReceiver = "default";

        private readonly AzuriteFixture _azurite = new();
        private TestIssuer? _issuer;
        private LocalHostProcess? _host;

        public TestIssuer Issuer => _issuer ?? throw new InvalidOperationException("the issuer did not start");

        public HttpClient Client { get; private set; } = null!;

        public string Output => _host is null ? string.Empty : _host.Output + _host.Error;

        public async Task InitializeAsync()
        {
            await _azurite.InitializeAsync();
            _issuer = await TestIssuer.StartAsync();
            var table = new TableServiceClient(_azurite.ConnectionString).GetTableClient(GrantOptions.DefaultTableName);
            await table.CreateAsync();
            await table.AddEntityAsync(new TableEntity(TestIssuer.CallerObjectId, GrantedReceiver) { ["GrantedBy"] = "tests", ["GrantedAt"] = DateTimeOffset.UtcNow });
            var settings = new Dictionary<string, string>
            {
                ["Signing:LocalKey"] = Vector.KeyBase64,
                ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
                ["AzureWebJobsStorage"] = _azurite.ConnectionString,
                ["WidgetStorage"] = _azurite.ConnectionString,
                ["Auth:Authority"] = _issuer.Authority,
                ["Auth:TenantId"] = TestIssuer.TenantId,
                ["Auth:Audience"] = TestIssuer.Audience,
                ["Auth:AppIdUri"] = TestIssuer.AppIdUri,
            };
            _host = LocalHostProcess.Start(LocalHostProcess.Dll, AppBuildOutput.Path, settings, ["--platform-auth"]);
            Client = new HttpClient { BaseAddress = await _host.ReadyAsync(TimeSpan.FromSeconds(90)), Timeout = TimeSpan.FromSeconds(60) };
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
}
