using WidgetSigning.Envelopes;
using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// A whole rotation through the real function classes, the real SecretClient and the HTTPS fake vault, with a hand-moved
/// clock: stage → both signatures → cut over → old retiring → old expired, with a request at every refresh and none
/// answered 503.
/// </summary>
public sealed class RotationRehearsalTests
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");

    [Fact]
    public async Task Rotation_StageCutOverRetireExpire_NoRequestAnswered503AndEveryStepVerifies()
    {
        // Arrange: version A is current; old versions verify for 2 hours after being replaced.
        await using var harness = await KeyVaultHarness.StartAsync(o => o.MaxVersionAge = TimeSpan.FromHours(2));
        var functions = new Functions(harness);
        functions.Materials.Add(Vector.Key);
        var a = harness.Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        var statuses = new List<int>();
        var first = await functions.SignAsync(statuses);
        Assert.Equal(OneWidget.SignatureHex, first.Json.Value<string>("signature"));

        // Act 1: stage B, active in one hour.
        var cutOver = harness.Time.GetUtcNow().AddHours(1);
        var bKey = Convert.ToBase64String(System.Security.Cryptography.RandomNumberGenerator.GetBytes(32));
        var b = harness.Server.SetSecret(KeyVaultHarness.SecretName, bKey, notBefore: cutOver);
        functions.Materials.Add(Convert.FromBase64String(bKey));
        await harness.AdvanceAsync(harness.Options.RefreshInterval);
        var staged = await functions.SignAsync(statuses);
        var keysWhileStaged = await functions.KeysAsync();

        // Assert 1: A still signs X-Signature (unchanged vector), B signs alongside, labelled; both webhook entries.
        Assert.Equal(a, staged.Json.Value<string>("keyId"));
        Assert.Equal(OneWidget.SignatureHex, staged.Json.Value<string>("signature"));
        Assert.Equal([(a, "current"), (b, "staged")], Labels(staged.Json));
        Assert.Equal(2, staged.ResponseHeaders[StandardWebhooks.SignatureHeader].ToString().Split(' ').Length);
        Assert.Equal([(a, "current"), (b, "staged")], KeyStates(keysWhileStaged));
        var bSignature = ((JArray)staged.Json["signatures"]!)[1].Value<string>("signature")!;
        Assert.True(await functions.VerifyHexAsync(bSignature, b));
        Assert.True(await functions.VerifyWebhookAsync(staged), "the staged answer's webhook headers verify");
        harness.Logs.Entries.Single(e => e.EventId.Id == 3009);

        // Act 2: time runs to the cut-over, a request at every refresh.
        while (harness.Time.GetUtcNow() < cutOver)
        {
            await harness.AdvanceAsync(harness.Options.RefreshInterval);
            await functions.SignAsync(statuses);
        }

        var after = await functions.SignAsync(statuses);
        var keysAfter = await functions.KeysAsync();

        // Assert 2: B is current, A retiring (still verifies, by id and without), B's signature matches its key.
        Assert.Equal(b, after.Json.Value<string>("keyId"));
        Assert.Equal([(b, "current")], Labels(after.Json));
        Assert.Equal([(b, "current"), (a, "retiring")], KeyStates(keysAfter));
        Assert.True(await functions.VerifyHexAsync(OneWidget.SignatureHex!, a));
        Assert.True(await functions.VerifyHexAsync(OneWidget.SignatureHex!, keyId: null));
        Assert.Equal(bSignature, after.Json.Value<string>("signature"));

        // Act 3: MaxVersionAge after the cut-over.
        for (var waited = TimeSpan.Zero; waited <= harness.Options.MaxVersionAge; waited += harness.Options.RefreshInterval)
        {
            await harness.AdvanceAsync(harness.Options.RefreshInterval);
            await functions.SignAsync(statuses);
        }

        var keysExpired = await functions.KeysAsync();

        // Assert 3: A no longer verifies and is no longer listed; and no request was ever answered anything but 200.
        Assert.False(await functions.VerifyHexAsync(OneWidget.SignatureHex!, a));
        Assert.Equal([(b, "current")], KeyStates(keysExpired));
        Assert.True(statuses.Count > 30, "a request at every refresh");
        Assert.All(statuses, s => Assert.Equal(200, s));
    }

    [Fact]
    public async Task Keys_VaultDownAtColdStart_Answers503WithRetryAfterAndNoList()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        var function = new KeysFunction(new KeysHandler(harness.Receivers, TestAuthorizers.Open(), NullLogger<KeysHandler>.Instance));
        var exchange = HttpExchange.Post([], query: "?receiver=default");

        // Act
        await exchange.ExecuteAsync(await function.RunAsync(exchange.Request));

        // Assert
        Assert.Equal(503, exchange.Status);
        Assert.Equal(ProblemTypes.KeyUnavailable, exchange.Json.Value<string>("type"));
        Assert.True(exchange.ResponseHeaders.ContainsKey("Retry-After"));
        Assert.Null(exchange.Json["keys"]);
    }

    private static List<(string, string)> Labels(JObject answer) =>
        ((JArray)answer["signatures"]!).Select(s => (s.Value<string>("keyId")!, s.Value<string>("state")!)).ToList();

    private static List<(string, string)> KeyStates(JObject keys) =>
        ((JArray)keys["keys"]!).Select(s => (s.Value<string>("keyId")!, s.Value<string>("state")!)).ToList();

    private sealed class Functions(KeyVaultHarness harness)
    {
        private readonly SignFunction _sign = new(new SignHandler(Reader(harness), harness.Signer, Microsoft.Extensions.Options.Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<SignHandler>.Instance));
        private readonly VerifyFunction _verify = new(new VerifyHandler(Reader(harness), harness.Verifier, Microsoft.Extensions.Options.Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<VerifyHandler>.Instance));
        private readonly KeysFunction _keys = new(new KeysHandler(harness.Receivers, TestAuthorizers.Open(), NullLogger<KeysHandler>.Instance));

        /// <summary>The keys in the vault: /api/keys must never show any form of them.</summary>
        public List<byte[]> Materials { get; } = [];

        public async Task<HttpExchange> SignAsync(List<int> statuses)
        {
            var exchange = HttpExchange.Post(OneWidget.Input);
            await exchange.ExecuteAsync(await _sign.RunAsync(exchange.Request));
            statuses.Add(exchange.Status);
            return exchange;
        }

        public async Task<JObject> KeysAsync()
        {
            var exchange = HttpExchange.Post([], query: "?receiver=default");
            await exchange.ExecuteAsync(await _keys.RunAsync(exchange.Request));
            Assert.Equal(200, exchange.Status);
            foreach (var material in Materials)
            {
                KeyMaterialAssert.Absent(exchange.Body, material);
            }

            return exchange.Json;
        }

        public async Task<bool> VerifyHexAsync(string signature, string? keyId)
        {
            var exchange = HttpExchange.Post(OneWidget.Input);
            exchange.Request.Headers[SignatureHeaders.Signature] = signature;
            if (keyId is not null)
            {
                exchange.Request.Headers[SignatureHeaders.KeyId] = keyId;
            }

            await exchange.ExecuteAsync(await _verify.RunAsync(exchange.Request));
            Assert.Equal(200, exchange.Status);
            return exchange.Json.Value<bool>("valid");
        }

        public async Task<bool> VerifyWebhookAsync(HttpExchange signed)
        {
            var exchange = HttpExchange.Post(OneWidget.Input);
            foreach (var header in new[] { StandardWebhooks.IdHeader, StandardWebhooks.TimestampHeader, StandardWebhooks.SignatureHeader })
            {
                exchange.Request.Headers[header] = signed.ResponseHeaders[header];
            }

            await exchange.ExecuteAsync(await _verify.RunAsync(exchange.Request));
            Assert.Equal(200, exchange.Status);
            return exchange.Json.Value<bool>("valid");
        }

        private static HttpEnvelopeReader Reader(KeyVaultHarness harness) =>
            new(new WidgetEnvelopeReader(), harness.Streams, Microsoft.Extensions.Options.Options.Create(new HttpOptions()), TestServices.NoBudget);
    }
}
