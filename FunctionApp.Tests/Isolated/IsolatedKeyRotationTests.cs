using Azure.Data.Tables;
using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Callers;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The rotation rehearsal (<see cref="Keys.RotationRehearsalTests"/>) through the published isolated app in
/// tools/WorkerHost, as a separate process that receives nothing but settings and environment: each key state the
/// rehearsal covers must answer the same on /api/sign, /api/verify and /api/keys. See <see cref="IsolatedKeyRotationFixture"/>
/// for how the worker reaches the fake vault for real.
/// </summary>
public sealed class IsolatedKeyRotationTests(IsolatedKeyRotationFixture fixture) : IClassFixture<IsolatedKeyRotationFixture>
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");

    [Fact]
    public void Worker_CredentialFromEnvironment_ReachesTheVaultAndTheAuthorityThroughTheTunnelWithATokenItWasIssued()
    {
        // Arrange / Act: the rotation the fixture ran.
        var authorities = fixture.Tunnel.Authorities;

        // Assert: the vault under its public name, a challenge, a token from the authority, authorized reads.
        Assert.Contains(IsolatedKeyRotationFixture.VaultHost + ":443", authorities);
        Assert.Contains(FakeKeyVaultServer.Authority + ":443", authorities);
        Assert.All(authorities, a => Assert.True(
            a == IsolatedKeyRotationFixture.VaultHost + ":443" || a == FakeKeyVaultServer.Authority + ":443", $"unexpected CONNECT {a}"));
        Assert.True(fixture.Server.Challenges >= 1, "the worker met the vault's challenge");
        Assert.True(fixture.Server.TokensIssued >= 1, "the worker got its token from the token endpoint");
        Assert.True(fixture.Server.SecretReads >= 2 && fixture.Server.ListReads >= 2, "the worker read the vault at refreshes");
    }

    [Fact]
    public void Sign_CurrentOnly_SignsWithTheCurrentVersionAloneAndListsIt()
    {
        // Arrange
        var state = fixture.CurrentOnly;

        // Act: recorded while the vault held only A.
        var a = fixture.VersionA;

        // Assert
        Assert.Equal(HttpStatusCode.OK, state.SignStatus);
        Assert.Equal(a, state.Sign.Value<string>("keyId"));
        Assert.Equal(OneWidget.SignatureHex, state.Sign.Value<string>("signature"));
        Assert.Equal(OneWidget.SignatureHex, state.XSignature);
        Assert.Equal([(a, "current")], Labels(state.Sign));
        Assert.Single(WebhookEntries(state));
        Assert.Equal([(a, "current")], KeyStates(state.Keys));
        Assert.True(state.VectorVerifiesWithA);
        Assert.True(state.WebhookVerifies, "the answer's webhook headers verify");
        Assert.Equal(HttpStatusCode.OK, state.KeysStatus);
        KeyMaterialAssert.Absent(state.KeysBody, Vector.Key);
    }

    [Fact]
    public void Sign_CurrentAndStaged_TwoLabelledSignaturesTwoWebhookEntriesAndBothListed()
    {
        // Arrange
        var state = fixture.Staged;
        var (a, b) = (fixture.VersionA, fixture.VersionB);

        // Act: recorded after B was stored with its nbf ahead and a refresh saw it.
        var bSignature = ((JArray)state.Sign["signatures"]!)[1].Value<string>("signature");

        // Assert: A still signs X-Signature (the unchanged vector), B signs alongside, labelled; both webhook entries.
        Assert.Equal(HttpStatusCode.OK, state.SignStatus);
        Assert.Equal(a, state.Sign.Value<string>("keyId"));
        Assert.Equal(OneWidget.SignatureHex, state.Sign.Value<string>("signature"));
        Assert.Equal(OneWidget.SignatureHex, state.XSignature);
        Assert.Equal([(a, "current"), (b, "staged")], Labels(state.Sign));
        Assert.Equal(fixture.ExpectedBSignatureHex, bSignature);
        Assert.Equal(2, WebhookEntries(state).Length);
        Assert.All(WebhookEntries(state), e => Assert.StartsWith("v1,", e, StringComparison.Ordinal));
        Assert.Equal([(a, "current"), (b, "staged")], KeyStates(state.Keys));
        Assert.True(state.BSignatureVerifiesWithB, "B's signature verifies by B's id");
        Assert.True(state.WebhookVerifies, "the staged answer's webhook headers verify");
        KeyMaterialAssert.Absent(state.KeysBody, Vector.Key);
        KeyMaterialAssert.Absent(state.KeysBody, fixture.KeyB);
    }

    [Fact]
    public void Sign_CutOver_NewVersionSignsAloneAndTheOldOneIsRetiringAndStillVerifies()
    {
        // Arrange
        var state = fixture.CutOver;
        var (a, b) = (fixture.VersionA, fixture.VersionB);

        // Act: recorded after B's nbf passed and a refresh made it current.

        // Assert: B is current, A retiring (still verifies, by id and without), B's signature is the one it signed as staged.
        Assert.Equal(HttpStatusCode.OK, state.SignStatus);
        Assert.Equal(b, state.Sign.Value<string>("keyId"));
        Assert.Equal([(b, "current")], Labels(state.Sign));
        Assert.Equal(fixture.ExpectedBSignatureHex, state.Sign.Value<string>("signature"));
        Assert.Equal(fixture.ExpectedBSignatureHex, state.XSignature);
        Assert.Single(WebhookEntries(state));
        Assert.Equal([(b, "current"), (a, "retiring")], KeyStates(state.Keys));
        Assert.True(state.VectorVerifiesWithA, "A's signature verifies by A's id while A is retiring");
        Assert.True(state.VectorVerifiesWithoutId, "A's signature verifies without an id while A is retiring");
        Assert.True(state.WebhookVerifies);
        KeyMaterialAssert.Absent(state.KeysBody, fixture.KeyB);
    }

    [Fact]
    public void Verify_OldVersionExpired_NoLongerVerifiesAndIsNoLongerListed()
    {
        // Arrange
        var state = fixture.Expired;
        var b = fixture.VersionB;

        // Act: recorded after KeyVault:MaxVersionAge passed since the cut-over.

        // Assert
        Assert.Equal(HttpStatusCode.OK, state.SignStatus);
        Assert.Equal(b, state.Sign.Value<string>("keyId"));
        Assert.False(state.VectorVerifiesWithA, "A's signature must not verify once A expired");
        Assert.False(state.VectorVerifiesWithoutId);
        Assert.Equal([(b, "current")], KeyStates(state.Keys));
    }

    [Fact]
    public void Sign_ThroughTheWholeRotation_NoRequestAnsweredAnythingBut200()
    {
        // Arrange / Act: a sign request at every poll of the rotation.
        var statuses = fixture.SignStatuses;

        // Assert
        Assert.True(statuses.Count > 10, $"a request at every poll ({statuses.Count})");
        Assert.All(statuses, s => Assert.Equal(HttpStatusCode.OK, s));
    }

    private static List<(string, string)> Labels(JObject answer) =>
        ((JArray)answer["signatures"]!).Select(s => (s.Value<string>("keyId")!, s.Value<string>("state")!)).ToList();

    private static List<(string, string)> KeyStates(JObject keys) =>
        ((JArray)keys["keys"]!).Select(s => (s.Value<string>("keyId")!, s.Value<string>("state")!)).ToList();

    private static string[] WebhookEntries(IsolatedKeyRotationFixture.StateAnswers state) =>
        (state.WebhookSignature ?? string.Empty).Split(' ', StringSplitOptions.RemoveEmptyEntries);
}

/// <summary>
/// One rotation through the published isolated app, recorded state by state for <see cref="IsolatedKeyRotationTests"/>.
/// The worker is configured the way a deployment off Azure is, with nothing test-only in the product:
/// <list type="bullet">
/// <item><c>KeyVault:VaultUri</c> names a vault under its public name (<see cref="VaultHost"/>); <c>HTTPS_PROXY</c> (which
/// .NET's default proxy honours) points at <see cref="ConnectTunnel"/>, which connects every CONNECT to the fake vault.</item>
/// <item>TLS: the fake's self-signed certificate (for <c>*.vault.azure.net</c> and the authority) is the worker's only
/// trusted root, through <c>SSL_CERT_FILE</c> / <c>SSL_CERT_DIR</c>, which .NET on Linux reads for its default trust.</item>
/// <item>Token: KeyVaultClientFactory's off-Azure DefaultAzureCredential tries EnvironmentCredential first;
/// <c>AZURE_TENANT_ID</c>/<c>AZURE_CLIENT_ID</c>/<c>AZURE_CLIENT_SECRET</c> make it a client-secret credential against the
/// public authority the vault's challenge names, which the tunnel also leads to the fake.</item>
/// <item>Refresh: the real clock, <c>KeyVault:RefreshInterval</c> at its minimum (1 s); every wait is bounded.</item>
/// </list>
/// </summary>
public sealed class IsolatedKeyRotationFixture : IAsyncLifetime
{
    public const string VaultHost = "widget-rehearsal.vault.azure.net";

    /// <summary>How long B stays staged: long enough to record the staged state on two slow shared cores.</summary>
    private static readonly TimeSpan StagedFor = TimeSpan.FromSeconds(12);

    /// <summary><c>KeyVault:MaxVersionAge</c>: how long A verifies after the cut-over, long enough to record the retiring state.</summary>
    private static readonly TimeSpan MaxVersionAge = TimeSpan.FromSeconds(12);

    private static readonly TimeSpan StateTimeout = TimeSpan.FromSeconds(45);

    private static readonly Vector OneWidget = Vector.Load("one-widget");

    private readonly AzuriteFixture _azurite = new IsolatedQueueTests.NewerApiAzuriteFixture();
    private string? _trustDirectory;
    private IsolatedAppHost? _host;
    private TestIssuer? _issuer;
    private HttpClient? _client;

    public FakeKeyVaultServer Server { get; private set; } = null!;

    public ConnectTunnel Tunnel { get; private set; } = null!;

    public string VersionA { get; private set; } = null!;

    public string VersionB { get; private set; } = null!;

    public byte[] KeyB { get; } = RandomNumberGenerator.GetBytes(32);

    /// <summary>B's signature of the vector's canonical bytes, computed here.</summary>
    public string ExpectedBSignatureHex => Convert.ToHexString(HMACSHA256.HashData(KeyB, OneWidget.Canonical)).ToLowerInvariant();

    public StateAnswers CurrentOnly { get; private set; } = null!;

    public StateAnswers Staged { get; private set; } = null!;

    public StateAnswers CutOver { get; private set; } = null!;

    public StateAnswers Expired { get; private set; } = null!;

    public List<HttpStatusCode> SignStatuses { get; } = [];

    public async Task InitializeAsync()
    {
        // Arrange: the fake vault on the real clock, reachable under its public names through the tunnel; A is current.
        Server = await FakeKeyVaultServer.StartAsync(() => DateTimeOffset.UtcNow, "*.vault.azure.net", FakeKeyVaultServer.Authority);
        Tunnel = new ConnectTunnel(Server.Endpoint);
        VersionA = Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        _trustDirectory = Directory.CreateTempSubdirectory("isolated-rotation-trust-").FullName;
        var trustFile = Path.Combine(_trustDirectory, "fake-vault.pem");
        await File.WriteAllTextAsync(trustFile, Server.CertificatePem);
        var emptyDirectory = Directory.CreateDirectory(Path.Combine(_trustDirectory, "certs")).FullName;

        await _azurite.InitializeAsync();

        // Production: authentication cannot be off, so callers carry the test issuer's tokens and the caller holds a grant.
        _issuer = await TestIssuer.StartAsync();
        var grants = new TableServiceClient(_azurite.ConnectionString).GetTableClient(GrantOptions.DefaultTableName);
        await grants.CreateAsync();
        await grants.AddEntityAsync(new TableEntity(TestIssuer.CallerObjectId, "default"));
        var settings = IsolatedAppHost.Settings(_azurite.ConnectionString, new Dictionary<string, string>
        {
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Production",
            ["Auth:Disabled"] = "false",
            ["Auth:Authority"] = _issuer.Authority,
            ["Auth:TenantId"] = TestIssuer.TenantId,
            ["Auth:Audience"] = TestIssuer.Audience,
            ["KeyVault:VaultUri"] = $"https://{VaultHost}/",
            ["KeyVault:SecretName"] = KeyVaultHarness.SecretName,
            ["KeyVault:RefreshInterval"] = "00:00:01",
            ["KeyVault:MaxVersionAge"] = MaxVersionAge.ToString("c"),
        });
        settings.Remove("Signing:LocalKey");
        var proxy = Tunnel.Address.AbsoluteUri.TrimEnd('/');
        var environment = new Dictionary<string, string?>
        {
            ["SSL_CERT_FILE"] = trustFile,
            ["SSL_CERT_DIR"] = emptyDirectory,
            ["HTTPS_PROXY"] = proxy,
            ["https_proxy"] = proxy,
            ["AZURE_TENANT_ID"] = FakeKeyVaultServer.Tenant,
            ["AZURE_CLIENT_ID"] = Server.ClientId,
            ["AZURE_CLIENT_SECRET"] = Server.ClientSecret,
        };

        // Nothing inherited may send the worker elsewhere: no other proxy, credential, authority or Azure marker.
        foreach (var name in new[]
        {
            "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "AZURE_AUTHORITY_HOST",
            "AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_CLIENT_CERTIFICATE_PASSWORD", "AZURE_USERNAME", "AZURE_PASSWORD",
            "AZURE_FEDERATED_TOKEN_FILE", "AZURE_TOKEN_CREDENTIALS", "AZURE_ADDITIONALLY_ALLOWED_TENANTS",
            "WEBSITE_INSTANCE_ID", "MSI_ENDPOINT", "IDENTITY_ENDPOINT", "KeyVault__VaultUri", "Signing__LocalKey",
        })
        {
            environment[name] = null;
        }

        _host = await IsolatedAppHost.StartAsync(settings, environment: environment);
        _client = new HttpClient { BaseAddress = _host.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        _client.DefaultRequestHeaders.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Bearer", _issuer.Mint(null, [.. AppRoles.All]));

        // Act: record every state the rehearsal covers.
        await WaitForKeysAsync(keys => KeyIds(keys).SequenceEqual([(VersionA, "current")]), "A current");
        CurrentOnly = await RecordAsync(bSignature: null);

        var cutOver = DateTimeOffset.UtcNow.Add(StagedFor);
        VersionB = Server.SetSecret(KeyVaultHarness.SecretName, Convert.ToBase64String(KeyB), notBefore: cutOver);
        await WaitForKeysAsync(keys => KeyIds(keys).SequenceEqual([(VersionA, "current"), (VersionB, "staged")]), "B staged");
        Staged = await RecordAsync(ExpectedBSignatureHex);
        Assert.True(DateTimeOffset.UtcNow < cutOver, "the staged state was recorded before the cut-over");

        await WaitForKeysAsync(keys => KeyIds(keys).FirstOrDefault() == (VersionB, "current"), "B current");
        CutOver = await RecordAsync(ExpectedBSignatureHex);

        await WaitForKeysAsync(keys => KeyIds(keys).SequenceEqual([(VersionB, "current")]), "A gone");
        Expired = await RecordAsync(ExpectedBSignatureHex);
    }

    public async Task DisposeAsync()
    {
        _client?.Dispose();
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }

        if (_issuer is not null)
        {
            await _issuer.DisposeAsync();
        }

        if (Tunnel is not null)
        {
            await Tunnel.DisposeAsync();
        }

        if (Server is not null)
        {
            await Server.DisposeAsync();
        }

        await _azurite.DisposeAsync();
        if (_trustDirectory is not null)
        {
            Directory.Delete(_trustDirectory, recursive: true);
        }
    }

    private static List<(string, string)> KeyIds(JObject keys) =>
        keys["keys"] is JArray list ? list.Select(s => (s.Value<string>("keyId")!, s.Value<string>("state")!)).ToList() : [];

    /// <summary>Polls /api/keys (signing at every poll) until <paramref name="reached"/> holds; bounded.</summary>
    private async Task WaitForKeysAsync(Func<JObject, bool> reached, string state)
    {
        var deadline = DateTimeOffset.UtcNow + StateTimeout;
        var last = string.Empty;
        while (DateTimeOffset.UtcNow < deadline)
        {
            using (var signed = await SignAsync())
            {
                SignStatuses.Add(signed.StatusCode);
            }

            using var response = await _client!.GetAsync("/api/keys?receiver=default");
            last = $"{(int)response.StatusCode} {await response.Content.ReadAsStringAsync()}";
            if (response.IsSuccessStatusCode && reached(JObject.Parse(last[4..])))
            {
                return;
            }

            await Task.Delay(TimeSpan.FromMilliseconds(250));
        }

        throw new Xunit.Sdk.XunitException($"the worker never reached '{state}' within {StateTimeout}; last /api/keys: {last}\n{_host!.Output}");
    }

    private async Task<StateAnswers> RecordAsync(string? bSignature)
    {
        using var signed = await SignAsync();
        SignStatuses.Add(signed.StatusCode);
        var sign = JObject.Parse(await signed.Content.ReadAsStringAsync());
        var webhook = new Dictionary<string, string?>
        {
            ["webhook-id"] = Header(signed, "webhook-id"),
            ["webhook-timestamp"] = Header(signed, "webhook-timestamp"),
            ["webhook-signature"] = Header(signed, "webhook-signature"),
        };

        using var keys = await _client!.GetAsync("/api/keys?receiver=default");
        var keysBody = await keys.Content.ReadAsStringAsync();
        return new StateAnswers(
            signed.StatusCode,
            sign,
            Header(signed, "X-Signature"),
            webhook["webhook-signature"],
            keys.StatusCode,
            keysBody,
            JObject.Parse(keysBody),
            VectorVerifiesWithA: await VerifyAsync(new() { ["X-Signature"] = OneWidget.SignatureHex, ["X-Signature-Key-Id"] = VersionA }),
            VectorVerifiesWithoutId: await VerifyAsync(new() { ["X-Signature"] = OneWidget.SignatureHex }),
            BSignatureVerifiesWithB: bSignature is not null && await VerifyAsync(new() { ["X-Signature"] = bSignature, ["X-Signature-Key-Id"] = VersionB }),
            WebhookVerifies: await VerifyAsync(webhook));
    }

    private async Task<HttpResponseMessage> SignAsync()
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Json(OneWidget.Input) };
        return await _client!.SendAsync(request);
    }

    private async Task<bool> VerifyAsync(Dictionary<string, string?> headers)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/verify") { Content = Json(OneWidget.Input) };
        foreach (var (name, value) in headers)
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }

        using var response = await _client!.SendAsync(request);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"/api/verify answered {(int)response.StatusCode}: {body}");
        return JObject.Parse(body).Value<bool>("valid");
    }

    private static ByteArrayContent Json(byte[] body)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        return content;
    }

    private static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values) ? string.Join(",", values) : null;

    /// <summary>What the worker answered in one key state.</summary>
    public sealed record StateAnswers(
        HttpStatusCode SignStatus,
        JObject Sign,
        string? XSignature,
        string? WebhookSignature,
        HttpStatusCode KeysStatus,
        string KeysBody,
        JObject Keys,
        bool VectorVerifiesWithA,
        bool VectorVerifiesWithoutId,
        bool BSignatureVerifiesWithB,
        bool WebhookVerifies);
}
