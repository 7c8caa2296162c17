using System.Security.Cryptography;
using Azure.Core.Pipeline;
using FunctionApp.Functions;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;
using WidgetSigning.Keys;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// Receivers' keys from Key Vault at the in-process sign function, in the WebJobs host, over the real Key Vault SDK and
/// the local Key Vault speaker: each receiver signs with its own secret, one receiver's revocation stops that receiver
/// alone, and a flood of requests naming random receivers costs Key Vault no more calls than the lookup bucket allows.
/// The clock is frozen, so the bucket never refills during a test.
/// </summary>
public sealed class ReceiverKeyVaultHostTests : IAsyncLifetime
{
    private readonly FakeTimeProvider _time = new(DateTimeOffset.UtcNow);
    private FakeKeyVaultServer _server = null!;
    private FunctionsTestHost _host = null!;
    private byte[] _keyA = null!;
    private byte[] _keyB = null!;
    private string _versionA = null!;

    public async Task InitializeAsync()
    {
        _server = await FakeKeyVaultServer.StartAsync(() => _time.GetUtcNow());
        _server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        _keyA = RandomNumberGenerator.GetBytes(32);
        _keyB = RandomNumberGenerator.GetBytes(32);
        _versionA = _server.SetSecret("receiver-partner-a", Convert.ToBase64String(_keyA));
        _server.SetSecret("receiver-partner-b", Convert.ToBase64String(_keyB));
        var settings = new Dictionary<string, string?>
        {
            ["KeyVault:VaultUri"] = _server.VaultUri.AbsoluteUri,
            ["KeyVault:SecretName"] = KeyVaultHarness.SecretName,
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
            typeof(SignFunction));
    }

    public async Task DisposeAsync()
    {
        await _host.DisposeAsync();
        await _server.DisposeAsync();
    }

    [Fact]
    public async Task RunAsync_TwoReceiversInKeyVault_EachSignatureIsUnderItsOwnSecret()
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        var response = await SignAsync("receiver=partner-a&receiver=partner-b");

        // Assert
        Assert.Equal(200, response.Status);
        var receivers = (JArray)response.Json["receivers"]!;
        Assert.Equal(Hex(_keyA, vector.Canonical), (string?)receivers[0]["signature"]);
        Assert.Equal(Hex(_keyB, vector.Canonical), (string?)receivers[1]["signature"]);
        Assert.Equal(_versionA, (string?)receivers[0]["keyId"]);
    }

    [Fact]
    public async Task RunAsync_OneReceiverRevoked_503NamingItWhileTheOtherSigns()
    {
        // Arrange: partner-a's only version disabled before it was ever loaded.
        _server.Disable("receiver-partner-a", _versionA);

        // Act
        var a = await SignAsync("receiver=partner-a");
        var b = await SignAsync("receiver=partner-b");
        var both = await SignAsync("receiver=partner-b&receiver=partner-a");

        // Assert: the 503 names partner-a; partner-b signs alone, and nothing is signed for a request that needs both.
        Assert.Equal(503, a.Status);
        Assert.Equal(ProblemTypes.KeyUnavailable, (string?)a.Json["type"]);
        Assert.Contains("'partner-a'", (string?)a.Json["detail"], StringComparison.Ordinal);
        Assert.Equal(200, b.Status);
        Assert.Equal(Hex(_keyB, Vector.Load("one-widget").Canonical), (string?)b.Json["signature"]);
        Assert.Equal(503, both.Status);
        Assert.DoesNotContain("signature\"", both.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_RandomReceiverFloodAttack_429AndKeyVaultCallsBoundedByTheLookupBucket()
    {
        // Arrange: the defaults (Receivers:MaxLookupsPerSecond 5); the bucket starts full and, with the clock frozen, never refills.
        var before = _server.Requests;
        var capacity = new ReceiverOptions().MaxLookupsPerSecond;

        // Act: 200 requests, each naming a receiver nobody has.
        var statuses = new List<int>();
        for (var i = 0; i < 200; i++)
        {
            var response = await SignAsync("receiver=flood-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(8)).ToLowerInvariant());
            statuses.Add(response.Status);
            if (response.Status == 429)
            {
                Assert.Equal(ProblemTypes.ReceiverLookupsLimited, (string?)response.Json["type"]);
                Assert.True(response.Headers.ContainsKey("Retry-After"));
            }
        }

        // Assert: at most one lookup (a versions list, plus the vault's auth challenge) per token; every other request a 429.
        var calls = _server.Requests - before;
        Assert.Equal(capacity, statuses.Count(s => s == 404));
        Assert.Equal(200 - capacity, statuses.Count(s => s == 429));
        Assert.True(calls <= (2 * capacity) + 1, $"{calls} Key Vault requests for a flood of 200 unknown receivers");
    }

    [Fact]
    public async Task RunAsync_UnknownReceiverAskedAgain_404FromTheCacheWithNoKeyVaultCall()
    {
        // Arrange
        var first = await SignAsync("receiver=nobody");
        var before = _server.Requests;

        // Act
        var again = await SignAsync("receiver=nobody");

        // Assert
        Assert.Equal(404, first.Status);
        Assert.Equal(404, again.Status);
        Assert.Equal(before, _server.Requests);
    }

    private static string Hex(byte[] key, byte[] data) => Convert.ToHexString(HMACSHA256.HashData(key, data)).ToLowerInvariant();

    private Task<HttpResponseSnapshot> SignAsync(string query) =>
        _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", Vector.Load("one-widget").Input, query: "?" + query));
}
