using System.Diagnostics;
using System.Security.Cryptography;
using Azure.Core.Pipeline;
using FunctionApp.Functions;
using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;
using WidgetSigning.Keys;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// <c>GET /api/receivers/{receiver}/jwks</c> in the WebJobs host over the real Key Vault SDK and the local Key Vault
/// speaker (HTTPS on loopback), with a hand-moved clock: an HMAC receiver loaded on the instance and a name nobody has
/// get the same bytes whatever the key set's bucket holds, the key set's lookups spend none of signing's bucket, and a
/// rotation's staged and retiring keys are published with their windows.
/// </summary>
public sealed class PublicKeysKeyVaultHostTests : IAsyncLifetime
{
    // Both requests of a comparison run in this trace, so the problem documents' traceId is the same by construction.
    private static readonly ActivityTraceId Trace = ActivityTraceId.CreateFromString("4bf92f3577b34da6a3ce929d0e0e4736");
    private static readonly TimeSpan Interval = TimeSpan.FromMinutes(5);

    private readonly FakeTimeProvider _time = new(new DateTimeOffset(2026, 11, 21, 9, 0, 0, TimeSpan.Zero));
    private FakeKeyVaultServer _server = null!;
    private FunctionsTestHost _host = null!;

    private KeyVaultReceiverKeySource Source => (KeyVaultReceiverKeySource)_host.GetService<IReceiverKeySource>();

    public async Task InitializeAsync()
    {
        _server = await FakeKeyVaultServer.StartAsync(() => _time.GetUtcNow());
        _server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        _server.SetSecret("receiver-partner-a", Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)));
        var settings = new Dictionary<string, string?>
        {
            ["KeyVault:VaultUri"] = _server.VaultUri.AbsoluteUri,
            ["KeyVault:SecretName"] = KeyVaultHarness.SecretName,
            ["KeyVault:RefreshInterval"] = Interval.ToString(),
            ["KeyVault:MaxRetries"] = "0",
            ["KeyVault:NetworkTimeout"] = "00:00:05",
        };
        _host = await FunctionsTestHost.StartAsync(
            settings,
            services =>
            {
                services.AddSingleton<IAzureEnvironment>(new FixedAzureEnvironment(true));
                services.AddSingleton<TimeProvider>(_time);
                services.AddSingleton(sp =>
                {
                    var options = sp.GetRequiredService<IOptions<KeyVaultOptions>>().Value;
                    var clientOptions = KeyVaultClientFactory.CreateClientOptions(options);
                    clientOptions.Transport = new HttpClientTransport(_server.CreateHandler());
                    return KeyVaultClientFactory.CreateClient(options, new StaticTokenCredential(_server.Token), clientOptions);
                });
            },
            typeof(SignFunction),
            typeof(PublicKeysFunction));
    }

    public async Task DisposeAsync()
    {
        await _host.DisposeAsync();
        await _server.DisposeAsync();
    }

    [Fact]
    public async Task Jwks_HmacReceiverAndUnknownNameThroughAFullBucket_AnswerByteForByteAlike()
    {
        // Arrange: partner-a (HMAC only) loaded by a signature, as on an instance that signs for it; the key set's bucket
        // full before each request.
        Assert.Equal(200, (await SignAsync("partner-a")).Status);
        Assert.NotNull(Source.DescribeLoadedKeys(ReceiverId.Parse("partner-a")));

        // Act
        var hmac = await JwksAsync("partner-a");
        _time.Advance(TimeSpan.FromSeconds(1));
        var unknown = await JwksAsync("zz-nobody-1");

        // Assert: one 404, byte for byte: status, every header, body.
        Assert.Equal(StatusCodes.Status404NotFound, hmac.Status);
        Assert.Equal(ProblemTypes.UnknownReceiver, (string?)hmac.Json["type"]);
        AssertAlike(hmac, unknown);
    }

    [Fact]
    public async Task Jwks_HmacReceiverAndUnknownNameThroughAnEmptyBucket_AnswerByteForByteAlike()
    {
        // Arrange: partner-a and the default receiver (HMAC) loaded; one probe empties the key set's bucket (the clock is frozen).
        Assert.Equal(200, (await SignAsync("partner-a")).Status);
        Assert.Equal(200, (await SignAsync("default")).Status);
        await JwksAsync("zz-nobody-0");

        // Act
        var hmac = await JwksAsync("partner-a");
        var fallback = await JwksAsync("default");
        var unknown = await JwksAsync("zz-nobody-1");

        // Assert: one 429 with the same Retry-After, byte for byte.
        Assert.Equal(StatusCodes.Status429TooManyRequests, hmac.Status);
        Assert.Equal(ProblemTypes.ReceiverLookupsLimited, (string?)hmac.Json["type"]);
        Assert.Equal("1", hmac.Header("Retry-After"));
        AssertAlike(hmac, unknown);
        AssertAlike(fallback, unknown);
    }

    [Fact]
    public async Task Jwks_ProbeFloodAttack_SpendsNoneOfSigningsLookupBucket()
    {
        // Arrange: the defaults (Receivers:MaxLookupsPerSecond 5); the clock is frozen, so no bucket refills.
        var capacity = new ReceiverOptions().MaxLookupsPerSecond;

        // Act: 50 key-set probes (one looked up, the rest refused), then as many signing lookups as signing's bucket holds.
        var probes = new List<int>();
        for (var i = 0; i < 50; i++)
        {
            probes.Add((await JwksAsync($"probe-{i}")).Status);
        }

        var signing = new List<int>();
        for (var i = 0; i < capacity; i++)
        {
            signing.Add((await SignAsync($"signing-{i}")).Status);
        }

        // Assert: every signing lookup ran (404: no such receiver), none refused for want of a token.
        Assert.Equal(1, probes.Count(s => s == StatusCodes.Status404NotFound));
        Assert.Equal(49, probes.Count(s => s == StatusCodes.Status429TooManyRequests));
        Assert.All(signing, s => Assert.Equal(StatusCodes.Status404NotFound, s));
    }

    [Fact]
    public async Task Jwks_StagedEd25519Key_PublishedAsStagedWithItsNbfBesideTheCurrent()
    {
        // Arrange: c's first key, then a second staged an hour ahead, seen at the next refresh.
        var created = _time.GetUtcNow();
        var v1 = SetEd25519("partner-c", notBefore: null);
        Assert.Equal(StatusCodes.Status200OK, (await JwksAsync("partner-c")).Status);
        var notBefore = _time.GetUtcNow().AddHours(1);
        var v2 = SetEd25519("partner-c", notBefore);
        await AdvanceAsync(Interval + TimeSpan.FromMinutes(1));

        // Act
        var set = await JwksAsync("partner-c");

        // Assert
        Assert.Equal(StatusCodes.Status200OK, set.Status);
        var keys = Keys(set);
        Assert.Equal(["current", "staged"], [.. keys.Select(k => (string)k["state"]!)]);
        Assert.Equal(v1, (string?)keys[0]["kid"]);
        Assert.Equal(created.ToUnixTimeSeconds(), (long?)keys[0]["nbf"]);
        Assert.Null(keys[0]["signsUntil"]);
        Assert.Equal(v2, (string?)keys[1]["kid"]);
        Assert.Equal(notBefore.ToUnixTimeSeconds(), (long?)keys[1]["nbf"]);
        Assert.Null(keys[1]["signsUntil"]);
    }

    [Fact]
    public async Task Jwks_AfterTheStagedKeySwitchesIn_RetiringKeyWithSignsUntilAfterTheCurrent()
    {
        // Arrange: v1, then v2 staged an hour ahead; the clock runs past v2's nbf and two refresh intervals more.
        var v1 = SetEd25519("partner-c", notBefore: null);
        Assert.Equal(StatusCodes.Status200OK, (await JwksAsync("partner-c")).Status);
        var notBefore = _time.GetUtcNow().AddHours(1);
        var v2 = SetEd25519("partner-c", notBefore);
        await AdvanceAsync(TimeSpan.FromHours(1) + (3 * Interval));

        // Act
        var set = await JwksAsync("partner-c");

        // Assert: v2 current from its nbf; v1 retiring, its last signature no earlier than v2's nbf, within a refresh of it.
        Assert.Equal(StatusCodes.Status200OK, set.Status);
        var keys = Keys(set);
        Assert.Equal([(v2, "current"), (v1, "retiring")], [.. keys.Select(k => ((string?)k["kid"], (string?)k["state"]))]);
        Assert.Equal(notBefore.ToUnixTimeSeconds(), (long?)keys[0]["nbf"]);
        var signsUntil = (long?)keys[1]["signsUntil"] ?? throw new Xunit.Sdk.XunitException("the retiring key has no signsUntil");
        Assert.InRange(signsUntil, notBefore.ToUnixTimeSeconds(), (notBefore + Interval + TimeSpan.FromMinutes(1)).ToUnixTimeSeconds());
    }

    // Status, content type, every header and the body, byte for byte.
    private static void AssertAlike(HttpResponseSnapshot expected, HttpResponseSnapshot actual)
    {
        Assert.Equal(expected.Status, actual.Status);
        Assert.Equal(expected.ContentType, actual.ContentType);
        Assert.Equal(Render(expected.Headers), Render(actual.Headers));
        Assert.Equal(expected.Body, actual.Body);
    }

    private static string Render(IHeaderDictionary headers) =>
        string.Join("\n", headers.OrderBy(h => h.Key, StringComparer.OrdinalIgnoreCase).Select(h => h.Key.ToLowerInvariant() + ": " + h.Value.ToString()));

    private static JArray Keys(HttpResponseSnapshot set) => (JArray)set.Json["keys"]!;

    private string SetEd25519(string receiver, DateTimeOffset? notBefore) =>
        _server.SetSecret("receiver-" + receiver, "whsk_" + Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)), notBefore: notBefore);

    // Moves the clock a minute at a time, letting each refresh the timers start finish before the next step.
    private async Task AdvanceAsync(TimeSpan by)
    {
        var target = _time.GetUtcNow() + by;
        await Source.RefreshesSettledAsync().WaitAsync(TimeSpan.FromSeconds(60));
        while (_time.GetUtcNow() < target)
        {
            _time.Advance(TimeSpan.FromMinutes(1));
            await Source.RefreshesSettledAsync().WaitAsync(TimeSpan.FromSeconds(60));
        }
    }

    private async Task<HttpResponseSnapshot> JwksAsync(string receiver)
    {
        var request = TestRequests.Post("/api/receivers/" + receiver + "/jwks", [], contentType: null, sendContentLength: false);
        request.Method = HttpMethods.Get;
        using var parent = new Activity("probe").SetParentId(Trace, ActivitySpanId.CreateFromString("00f067aa0ba902b7"), ActivityTraceFlags.Recorded).Start();
        return await _host.InvokeHttpAsync(PublicKeysFunction.Name, request);
    }

    private Task<HttpResponseSnapshot> SignAsync(string receiver) =>
        _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", Vector.Load("one-widget").Input, query: "?receiver=" + receiver));
}
