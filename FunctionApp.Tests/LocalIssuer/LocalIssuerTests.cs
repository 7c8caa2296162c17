using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using FunctionApp.Tests.TestKit;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Protocols;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using Microsoft.IdentityModel.Tokens;

namespace FunctionApp.Tests.LocalIssuer;

/// <summary>
/// tools/LocalIssuer as a relying party sees it: the real process, its metadata and keys read with Microsoft.IdentityModel's
/// OpenID ConfigurationManager, its tokens validated with JsonWebTokenHandler as the app validates Entra's; every bad form
/// refused with a 4xx naming the field, and nothing off loopback able to reach it.
/// </summary>
public sealed class LocalIssuerTests : IAsyncLifetime
{
    private static readonly IReadOnlyList<string> AllRoles = WidgetSigning.Callers.AppRoles.All;

    private readonly HttpClient _http = new();
    private LocalIssuerProcess _issuer = null!;

    public async Task InitializeAsync() => _issuer = await LocalIssuerProcess.StartAsync();

    public async Task DisposeAsync()
    {
        _http.Dispose();
        await _issuer.DisposeAsync();
    }

    [Fact]
    public async Task Token_FromTheTokenEndpoint_ValidatesAgainstTheIssuersOwnMetadataAsAnEntraV2AppToken()
    {
        // Arrange
        var metadata = await ConfigurationAsync(_issuer);

        // Act
        var token = await TokenAsync(Form());
        var result = await new JsonWebTokenHandler().ValidateTokenAsync(token, Parameters(metadata));

        // Assert
        Assert.Equal(_issuer.Authority, metadata.Issuer);
        Assert.Contains(SecurityAlgorithms.RsaSha256, metadata.IdTokenSigningAlgValuesSupported);
        Assert.True(result.IsValid, result.Exception?.ToString());
        var jwt = (JsonWebToken)result.SecurityToken;
        Assert.Equal(("JWT", SecurityAlgorithms.RsaSha256), (jwt.Typ, jwt.Alg));
        Assert.Equal(metadata.SigningKeys.Single().KeyId, jwt.Kid);
        Assert.Equal(LocalIssuerProcess.Audience, Assert.Single(jwt.Audiences));
        Assert.Equal(LocalIssuerProcess.TenantId, jwt.GetClaim("tid").Value);
        Assert.Equal(LocalIssuerProcess.DefaultCaller, jwt.GetClaim("oid").Value);
        Assert.Equal(LocalIssuerProcess.DefaultCaller, jwt.Subject);
        Assert.Equal("7a1e0000-0000-4000-8000-00000000000d", jwt.GetClaim("azp").Value);
        Assert.Equal(("2.0", "app"), (jwt.GetClaim("ver").Value, jwt.GetClaim("idtyp").Value));
        Assert.Equal(AllRoles, jwt.Claims.Where(c => c.Type == "roles").Select(c => c.Value));
        Assert.Equal(TimeSpan.FromHours(1), jwt.ValidTo - jwt.IssuedAt);
        Assert.Equal(jwt.IssuedAt, jwt.ValidFrom);
    }

    [Fact]
    public async Task Token_FromAnotherIssuerInstance_FailsSignatureValidation()
    {
        // Arrange: a second issuer has its own in-memory key, as a restarted one would.
        await using var other = await LocalIssuerProcess.StartAsync();
        var otherMetadata = await ConfigurationAsync(other);
        var token = await TokenAsync(Form());
        var parameters = Parameters(otherMetadata);
        parameters.ValidIssuer = _issuer.Authority;

        // Act
        var result = await new JsonWebTokenHandler().ValidateTokenAsync(token, parameters);

        // Assert
        Assert.False(result.IsValid);
        Assert.IsAssignableFrom<SecurityTokenSignatureKeyNotFoundException>(result.Exception);
    }

    [Fact]
    public async Task Token_RolesOidAndAzpInTheForm_AreTheTokensClaims()
    {
        // Arrange
        var form = Form(("scope", LocalIssuerProcess.Audience + "/.default"), ("roles", "Widgets.Verify"),
            ("oid", "0F0E0000-0000-4000-8000-0000000000AA"), ("azp", "0f0e0000-0000-4000-8000-0000000000bb"));

        // Act
        var jwt = new JsonWebToken(await TokenAsync(form));

        // Assert
        Assert.Equal(["Widgets.Verify"], jwt.Claims.Where(c => c.Type == "roles").Select(c => c.Value));
        Assert.Equal("0f0e0000-0000-4000-8000-0000000000aa", jwt.GetClaim("oid").Value);
        Assert.Equal("0f0e0000-0000-4000-8000-0000000000aa", jwt.Subject);
        Assert.Equal("0f0e0000-0000-4000-8000-0000000000bb", jwt.GetClaim("azp").Value);
    }

    [Fact]
    public async Task Token_EmptyRoles_HasNoRolesClaim()
    {
        // Act
        var jwt = new JsonWebToken(await TokenAsync(Form(("roles", ""))));

        // Assert
        Assert.False(jwt.TryGetClaim("roles", out _));
    }

    [Theory]
    [InlineData("grant_type", "password", "unsupported_grant_type")]
    [InlineData("grant_type", null, "invalid_request")]
    [InlineData("scope", "api://someone-else/.default", "invalid_scope")]
    [InlineData("scope", null, "invalid_scope")]
    [InlineData("roles", "Widgets.Verify,Widgets.Admin", "invalid_request")]
    [InlineData("oid", "not-a-guid", "invalid_request")]
    [InlineData("azp", "7a1e0000000040008000000000000000d", "invalid_request")]
    [InlineData("client_id", "x", "invalid_request")]
    [InlineData("resource", "https://graph.microsoft.com", "invalid_request")]
    public async Task TokenEndpoint_BadField_Refuses400NamingTheField(string field, string? value, string error)
    {
        // Arrange: a good form with one field wrong (or, for null, missing).
        var fields = Form().Where(f => f.Name != field).ToList();
        if (value is not null)
        {
            fields.Add((field, value));
        }

        // Act
        using var response = await _http.PostAsync(_issuer.TokenEndpoint, new FormUrlEncodedContent(fields.Select(f => KeyValuePair.Create(f.Name, f.Value))));

        // Assert
        await AssertRefusedAsync(response, HttpStatusCode.BadRequest, field, error);
    }

    [Fact]
    public async Task TokenEndpoint_FieldRepeated_Refuses400NamingTheField()
    {
        // Act
        using var response = await _http.PostAsync(_issuer.TokenEndpoint, Encoded("grant_type=client_credentials&scope=api%3A%2F%2Fwidget-signing-local%2F.default&roles=Widgets.Sign&roles=Widgets.Verify"));

        // Assert
        await AssertRefusedAsync(response, HttpStatusCode.BadRequest, "roles", "invalid_request");
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task TokenEndpoint_FormFloodAttack_Refuses400NamingTheFormBeforeReadingItAll(bool chunked)
    {
        // Arrange: a good form padded past the 4 KiB bound, with a length up front or chunked (no length to check).
        var body = "grant_type=client_credentials&scope=api%3A%2F%2Fwidget-signing-local%2F.default&client_secret=" + new string('a', 8 * 1024);
        using var content = Encoded(body);
        using var request = new HttpRequestMessage(HttpMethod.Post, _issuer.TokenEndpoint) { Content = content };
        request.Headers.TransferEncodingChunked = chunked;

        // Act
        using var response = await _http.SendAsync(request);

        // Assert
        await AssertRefusedAsync(response, HttpStatusCode.BadRequest, "form", "invalid_request");
    }

    [Fact]
    public async Task TokenEndpoint_JsonInsteadOfAForm_Refuses415NamingContentType()
    {
        // Act
        using var response = await _http.PostAsync(_issuer.TokenEndpoint, new StringContent("""{"grant_type":"client_credentials"}""", Encoding.UTF8, "application/json"));

        // Assert
        await AssertRefusedAsync(response, HttpStatusCode.UnsupportedMediaType, "Content-Type", "invalid_request");
    }

    [Fact]
    public async Task TokenEndpoint_InvalidUtf8Attack_Refuses400NamingTheForm()
    {
        // Arrange: a form whose percent-decoded bytes are not UTF-8 is still a string; raw bytes that are not must be refused.
        using var content = new ByteArrayContent([.. "grant_type="u8, 0xC3, 0x28]);
        content.Headers.ContentType = new("application/x-www-form-urlencoded");

        // Act
        using var response = await _http.PostAsync(_issuer.TokenEndpoint, content);

        // Assert
        await AssertRefusedAsync(response, HttpStatusCode.BadRequest, "form", "invalid_request");
    }

    [Theory]
    [InlineData("GET", "/{0}/v2.0/.well-known/openid-configuration")]
    [InlineData("GET", "/{0}/discovery/v2.0/keys")]
    [InlineData("POST", "/{0}/oauth2/v2.0/token")]
    public async Task Endpoint_UnknownTenant_Refuses404NamingTheTenant(string method, string path)
    {
        // Arrange: another tenant's id (Microsoft's own "common" alias included) must never get this issuer's keys or tokens.
        using var request = new HttpRequestMessage(new HttpMethod(method), new Uri($"http://127.0.0.1:{_issuer.Port}{string.Format(System.Globalization.CultureInfo.InvariantCulture, path, "common")}"))
        {
            Content = method == "POST" ? Encoded("grant_type=client_credentials&scope=api%3A%2F%2Fwidget-signing-local%2F.default") : null,
        };

        // Act
        using var response = await _http.SendAsync(request);

        // Assert
        await AssertRefusedAsync(response, HttpStatusCode.NotFound, "tenant", "invalid_tenant");
    }

    [Fact]
    public async Task Keys_PublishedKeySet_HoldsOnlyThePublicHalf()
    {
        // Act
        using var keys = JsonDocument.Parse(await _http.GetStringAsync(new Uri($"http://127.0.0.1:{_issuer.Port}/{LocalIssuerProcess.TenantId}/discovery/v2.0/keys")));

        // Assert
        var key = Assert.Single(keys.RootElement.GetProperty("keys").EnumerateArray().ToList());
        Assert.Equal(["kty", "use", "kid", "alg", "n", "e"], key.EnumerateObject().Select(p => p.Name));
        Assert.Equal(("RSA", "sig"), (key.GetProperty("kty").GetString(), key.GetProperty("use").GetString()));
        Assert.Equal(256, Base64UrlEncoder.DecodeBytes(key.GetProperty("n").GetString()).Length);
    }

    [Fact]
    public async Task Issuer_Listening_AcceptsOnlyOn127001()
    {
        // Arrange: a socket bound to 127.0.0.1 refuses 127.0.0.2 (same loopback interface) and every other address; one
        // bound to any address (0.0.0.0 or [::]) would accept them.
        var others = new List<IPAddress> { IPAddress.Parse("127.0.0.2"), IPAddress.IPv6Loopback };
        others.AddRange(System.Net.NetworkInformation.NetworkInterface.GetAllNetworkInterfaces()
            .SelectMany(n => n.GetIPProperties().UnicastAddresses)
            .Select(a => a.Address)
            .Where(a => !IPAddress.IsLoopback(a) && a.AddressFamily == AddressFamily.InterNetwork));

        // Act
        var accepted = await AcceptsAsync(IPAddress.Loopback, _issuer.Port);
        var acceptedElsewhere = new List<IPAddress>();
        foreach (var address in others)
        {
            if (await AcceptsAsync(address, _issuer.Port))
            {
                acceptedElsewhere.Add(address);
            }
        }

        // Assert
        Assert.True(accepted, "the issuer does not accept on 127.0.0.1");
        Assert.Empty(acceptedElsewhere);
    }

    [Theory]
    [InlineData("--port must be 0-65535, not '70000'", "--port", "70000")]
    [InlineData("--port must be 0-65535, not '-1'", "--port", "-1")]
    [InlineData("Unknown argument '--host'", "--host", "0.0.0.0")]
    [InlineData("--port needs a value", "--port")]
    public async Task Start_BadArgument_ExitsTwoNamingIt(string expected, params string[] arguments)
    {
        // Act
        var run = await ExternalTool.RunAsync("dotnet", [LocalIssuerDll(), .. arguments]);

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
    }

    private static string LocalIssuerDll()
    {
        var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar)).Parent!.Name;
        return Path.Combine(RepoRoot.Path, "tools", "LocalIssuer", "bin", configuration, "net10.0", "LocalIssuer.dll");
    }

    private static async Task<bool> AcceptsAsync(IPAddress address, int port)
    {
        using var client = new TcpClient(address.AddressFamily);
        try
        {
            await client.ConnectAsync(address, port).WaitAsync(TimeSpan.FromSeconds(5));
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    private static async Task<OpenIdConnectConfiguration> ConfigurationAsync(LocalIssuerProcess issuer)
    {
        var manager = new ConfigurationManager<OpenIdConnectConfiguration>(
            issuer.MetadataAddress, new OpenIdConnectConfigurationRetriever(), new HttpDocumentRetriever { RequireHttps = false });
        return await manager.GetConfigurationAsync(CancellationToken.None);
    }

    private static TokenValidationParameters Parameters(OpenIdConnectConfiguration metadata) => new()
    {
        ValidIssuer = metadata.Issuer,
        ValidAudience = LocalIssuerProcess.Audience,
        IssuerSigningKeys = metadata.SigningKeys,
        ValidTypes = ["JWT"],
        ValidAlgorithms = [SecurityAlgorithms.RsaSha256],
        RequireExpirationTime = true,
        RequireSignedTokens = true,
        ValidateLifetime = true,
    };

    private static List<(string Name, string Value)> Form(params (string Name, string Value)[] overrides)
    {
        var form = new List<(string Name, string Value)> { ("grant_type", "client_credentials"), ("scope", LocalIssuerProcess.AppIdUri + "/.default") };
        form.RemoveAll(f => overrides.Any(o => o.Name == f.Name));
        form.AddRange(overrides);
        return form;
    }

    private static StringContent Encoded(string body) => new(body, Encoding.UTF8, "application/x-www-form-urlencoded");

    private async Task<string> TokenAsync(List<(string Name, string Value)> form)
    {
        using var response = await _http.PostAsync(_issuer.TokenEndpoint, new FormUrlEncodedContent(form.Select(f => KeyValuePair.Create(f.Name, f.Value))));
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, text);
        using var json = JsonDocument.Parse(text);
        Assert.Equal("Bearer", json.RootElement.GetProperty("token_type").GetString());
        Assert.Equal(3600, json.RootElement.GetProperty("expires_in").GetInt32());
        return json.RootElement.GetProperty("access_token").GetString()!;
    }

    private static async Task AssertRefusedAsync(HttpResponseMessage response, HttpStatusCode status, string field, string error)
    {
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == status, $"{(int)response.StatusCode}: {text}");
        using var json = JsonDocument.Parse(text);
        Assert.Equal(field, json.RootElement.GetProperty("field").GetString());
        Assert.Equal(error, json.RootElement.GetProperty("error").GetString());
        Assert.False(json.RootElement.TryGetProperty("access_token", out _));
    }
}
