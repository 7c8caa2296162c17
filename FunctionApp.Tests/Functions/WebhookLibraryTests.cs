using FunctionApp.Functions;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.DependencyInjection;
using Newtonsoft.Json.Linq;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// Answers checked by code we did not write: the Standard Webhooks reference library (npm <c>standardwebhooks</c>, through
/// scripts/verify-webhook.mjs) and openssl, for answers signed through the HTTP function in the WebJobs host (Key Vault
/// fake with a staged version: a rotation in progress) and through the queue function on Azurite.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class WebhookLibraryTests : IDisposable
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;
    private readonly string _directory = Directory.CreateTempSubdirectory("webhook-library-").FullName;

    public WebhookLibraryTests(AzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task SignFunction_RotationInProgress_LibraryVerifiesWithEitherSecretAndOpensslMatchesEachHex()
    {
        // Arrange: version A current, version B staged (nbf in an hour), in a real vault's API over HTTPS.
        await using var server = await FakeKeyVaultServer.StartAsync(() => DateTimeOffset.UtcNow);
        var a = server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        var bKey = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        var b = server.SetSecret(KeyVaultHarness.SecretName, Convert.ToBase64String(bKey), notBefore: DateTimeOffset.UtcNow.AddHours(1));
        await using var host = await KeyVaultHarness.StartHttpHostAsync(server, typeof(SignFunction));
        var request = TestRequests.Post("/api/sign", OneWidget.Input, query: "?output=canonical");
        request.Headers[WebhookRequestHeaders.IdempotencyKey] = "order-2026-11-23-0001";

        // Act
        var response = await host.InvokeHttpAsync(SignFunction.Name, request);
        var (body, headers) = Save("http", response.Body, response.Headers.ToDictionary(h => h.Key, h => h.Value.ToString()));
        var library = await ExternalTool.VerifyWebhookAsync(body, headers, "whsec_" + Vector.KeyBase64, "whsec_" + Convert.ToBase64String(bKey));
        var opensslA = await ExternalTool.OpensslHmacAsync(body, Vector.Key);
        var opensslB = await ExternalTool.OpensslHmacAsync(body, bKey);

        // Assert
        Assert.Equal(200, response.Status);
        Assert.True(library.ExitCode == 0, library.Output + library.Error);
        var verdict = JObject.Parse(library.Output);
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey("order-2026-11-23-0001", OneWidget.Canonical), verdict.Value<string>("webhookId"));
        Assert.All(verdict["results"]!, r => Assert.Equal("valid", r.Value<string>("webhook")));
        Assert.Equal(OneWidget.SignatureHex, opensslA);
        Assert.Equal(opensslA, response.Header(SignatureHeaders.Signature));
        Assert.Equal($"current:{a}:{opensslA}, staged:{b}:{opensslB}", response.Header(SignatureHeaders.Signatures));
        Assert.Equal(a, response.Header(SignatureHeaders.KeyId));
    }

    [Fact]
    public async Task SignFunction_CrossReceiverForgeryAttack_LibraryWithTheOtherReceiversSecretRejectsTheHeaders()
    {
        // Arrange: two receivers, each with its own key; an envelope signed for partner-a only.
        var aKey = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        var bKey = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        await using var host = await FunctionsTestHost.StartAsync(
            new Dictionary<string, string?>
            {
                ["Signing:LocalKey"] = Vector.KeyBase64,
                ["Signing:LocalKeys:partner-a"] = Convert.ToBase64String(aKey),
                ["Signing:LocalKeys:partner-b"] = Convert.ToBase64String(bKey),
            },
            typeof(SignFunction));

        // Act: partner-b (or anyone holding only its secret) checks partner-a's headers, and partner-a checks its own.
        var response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", OneWidget.Input, query: "?receiver=partner-a&output=canonical"));
        var (body, headers) = Save("cross-receiver", response.Body, response.Headers.ToDictionary(h => h.Key, h => h.Value.ToString()));
        var asB = await ExternalTool.VerifyWebhookAsync(body, headers, "whsec_" + Convert.ToBase64String(bKey));
        var asA = await ExternalTool.VerifyWebhookAsync(body, headers, "whsec_" + Convert.ToBase64String(aKey));

        // Assert: the library refuses with partner-b's secret, on both forms, and accepts with partner-a's.
        Assert.Equal(200, response.Status);
        Assert.Equal("partner-a", response.Header(SignatureHeaders.Receiver));
        Assert.Equal(1, asB.ExitCode);
        var refused = Assert.Single(JObject.Parse(asB.Output)["results"]!);
        Assert.NotEqual("valid", refused.Value<string>("webhook"));
        Assert.NotEqual("valid", refused.Value<string>("xSignature"));
        Assert.True(asA.ExitCode == 0, asA.Output + asA.Error);
        Assert.NotEqual(await ExternalTool.OpensslHmacAsync(body, bKey), response.Header(SignatureHeaders.Signature));
    }

    [Fact]
    public async Task SignFunction_ReplayOutsideToleranceAttack_LibraryRejectsItAsTooOld()
    {
        // Arrange: an answer signed ten minutes ago (the signer's clock set back), presented now.
        var tenMinutesAgo = new FakeTimeProvider(DateTimeOffset.UtcNow.AddMinutes(-10));
        await using var host = await FunctionsTestHost.StartAsync(
            new Dictionary<string, string?> { ["Signing:LocalKey"] = Vector.KeyBase64 },
            services => services.AddSingleton<TimeProvider>(tenMinutesAgo),
            typeof(SignFunction));

        // Act
        var response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", OneWidget.Input, query: "?output=canonical"));
        var (body, headers) = Save("replay", response.Body, response.Headers.ToDictionary(h => h.Key, h => h.Value.ToString()));
        var library = await ExternalTool.VerifyWebhookAsync(body, headers, "whsec_" + Vector.KeyBase64);

        // Assert: rejected by the library for its age, while the bytes and the hex signature are still right.
        Assert.Equal(200, response.Status);
        Assert.Equal(1, library.ExitCode);
        Assert.Contains("Message timestamp too old", library.Output, StringComparison.Ordinal);
        Assert.Equal(OneWidget.SignatureHex, await ExternalTool.OpensslHmacAsync(body, Vector.Key));
    }

    [Fact]
    public async Task SignQueueFunction_RotationInProgress_LibraryVerifiesTheOutputMessageUnderTheIdDerivedFromTheMessageId()
    {
        // Arrange: the queue host with a current and a staged key.
        var current = new SigningKey("version-a", Vector.Key);
        var stagedKey = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        var staged = new SigningKey("version-b", stagedKey);
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite, _output, overrideServices: services => services.AddSingleton<IReceiverKeySource>(new FixedReceiverKeySource(current, staged)));

        // Act
        var id = await host.EnqueueAsync(OneWidget.Input);
        var message = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience));
        var webhook = (JObject)message["webhook"]!;
        var (body, headers) = Save("queue", Convert.FromBase64String(message.Value<string>("canonicalBase64")!), new Dictionary<string, string>
        {
            [StandardWebhooks.IdHeader] = webhook.Value<string>("id")!,
            [StandardWebhooks.TimestampHeader] = webhook.Value<long>("timestamp").ToString(System.Globalization.CultureInfo.InvariantCulture),
            [StandardWebhooks.SignatureHeader] = webhook.Value<string>("signature")!,
            [SignatureHeaders.Signature] = message.Value<string>("signature")!,
        });
        var library = await ExternalTool.VerifyWebhookAsync(body, headers, "whsec_" + Vector.KeyBase64, "whsec_" + Convert.ToBase64String(stagedKey));

        // Assert
        Assert.True(library.ExitCode == 0, library.Output + library.Error);
        Assert.Equal(DerivedWebhookId.ForQueueMessage(id, OneWidget.Canonical), webhook.Value<string>("id"));
        Assert.Equal(OneWidget.SignatureHex, await ExternalTool.OpensslHmacAsync(body, Vector.Key));
        var labels = ((JArray)message["signatures"]!).Select(s => (s.Value<string>("keyId"), s.Value<string>("state"), s.Value<string>("signature"))).ToList();
        Assert.Equal(
            [("version-a", "current", OneWidget.SignatureHex), ("version-b", "staged", await ExternalTool.OpensslHmacAsync(body, stagedKey))],
            labels);
    }

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private (string Body, string Headers) Save(string name, byte[] body, IDictionary<string, string> headers)
    {
        var bodyFile = Path.Combine(_directory, name + ".json");
        var headersFile = Path.Combine(_directory, name + ".headers.json");
        File.WriteAllBytes(bodyFile, body);
        File.WriteAllText(headersFile, new JObject(headers.Select(h => new JProperty(h.Key, h.Value))).ToString());
        _output.WriteLine($"{name} headers: {File.ReadAllText(headersFile)}");
        _output.WriteLine($"{name} body: {System.Text.Encoding.UTF8.GetString(body)}");
        return (bodyFile, headersFile);
    }
}
