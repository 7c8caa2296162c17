using System.Globalization;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Http;

/// <summary>
/// <c>/api/sign</c>: <c>?forms=</c> within the deployment's <c>Http:SignatureForms</c>. The answer carries the
/// forms made and nothing of the others; an unknown or repeated value, or a form the deployment leaves out, is a 400
/// naming the parameter, checked before the body is read; <c>/api/verify</c> checks whichever form it is given.
/// </summary>
public sealed class SignatureFormsRequestTests
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");
    private static readonly WebhookVector OneWidgetWebhook = WebhookVector.Load("one-widget");
    private readonly TestServices _services = new();
    private readonly FakeTimeProvider _time = new(DateTimeOffset.FromUnixTimeSeconds(OneWidgetWebhook.Timestamp));

    public static TheoryData<string> HostileFormsQueries => new()
    {
        "?forms=",
        "?forms=PLAIN",
        "?forms=Webhook",
        "?forms=hmac",
        "?forms=plain,webhook",
        "?forms=plain+webhook",
        "?forms=0",
        "?forms=3",
        "?forms=%00plain",
        "?forms=plain%20",
        "?forms=plain&forms=webhook",
        "?forms=plain&forms=plain",
        "?forms=" + new string('x', 4096),
    };

    [Theory]
    [InlineData(null, SignatureForms.Both)]
    [InlineData("?forms=both", SignatureForms.Both)]
    [InlineData("?forms=plain", SignatureForms.Plain)]
    [InlineData("?forms=webhook", SignatureForms.Webhook)]
    [InlineData("?forms=webhook&output=canonical", SignatureForms.Webhook)]
    [InlineData("?output=canonical&forms=plain", SignatureForms.Plain)]
    public async Task Sign_FormsParameterUnderTheDefault_OnlyTheFormsAskedForAndEachMatchesTheContract(string? query, SignatureForms expected)
    {
        // Act
        var exchange = await SignAsync(SignatureForms.Both, query, idempotencyKey: "forms-30");

        // Assert
        Assert.Equal(200, exchange.Status);
        AssertForms(exchange, expected, canonicalBody: query?.Contains("output=canonical", StringComparison.Ordinal) == true);
    }

    [Theory]
    [InlineData(SignatureForms.Plain)]
    [InlineData(SignatureForms.Webhook)]
    [InlineData(SignatureForms.Both)]
    public async Task Sign_NoFormsParameter_TheDeploymentsForms(SignatureForms deployment)
    {
        // Act
        var exchange = await SignAsync(deployment, query: null, idempotencyKey: "forms-30");

        // Assert
        Assert.Equal(200, exchange.Status);
        AssertForms(exchange, deployment, canonicalBody: false);
    }

    [Theory]
    [InlineData(SignatureForms.Plain, "?forms=plain")]
    [InlineData(SignatureForms.Webhook, "?forms=webhook")]
    public async Task Sign_FormsParameterEqualToTheDeployments_Signed(SignatureForms deployment, string query)
    {
        var exchange = await SignAsync(deployment, query, idempotencyKey: "forms-30");

        Assert.Equal(200, exchange.Status);
        AssertForms(exchange, deployment, canonicalBody: false);
    }

    [Theory]
    [MemberData(nameof(HostileFormsQueries))]
    public async Task Sign_UnknownOrRepeatedFormsValueAttack_400NamingTheParameterAndNothingSigned(string query)
    {
        // Act
        var exchange = await SignAsync(SignatureForms.Both, query);

        // Assert: the accepted values are named, the client's value is not echoed, and no signature of any form left.
        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, exchange.Json.Value<string>("type"));
        Assert.Equal("Query parameter 'forms' must be given once, as 'plain', 'webhook' or 'both'.", exchange.Json.Value<string>("detail"));
        AssertNothingSigned(exchange);
    }

    [Theory]
    [InlineData(SignatureForms.Plain, "webhook")]
    [InlineData(SignatureForms.Plain, "both")]
    [InlineData(SignatureForms.Webhook, "plain")]
    [InlineData(SignatureForms.Webhook, "both")]
    public async Task Sign_FormTheDeploymentLeavesOut_400NamingTheParameterAndTheSetting(SignatureForms deployment, string asked)
    {
        // Act
        var exchange = await SignAsync(deployment, "?forms=" + asked);

        // Assert
        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, exchange.Json.Value<string>("type"));
        var detail = exchange.Json.Value<string>("detail")!;
        Assert.StartsWith($"Query parameter 'forms' asks for '{asked}', but this deployment makes only '{SignatureFormNames.NameOf(deployment)}'", detail, StringComparison.Ordinal);
        Assert.Contains(HttpOptions.SignatureFormsSetting, detail, StringComparison.Ordinal);
        AssertNothingSigned(exchange);
    }

    [Fact]
    public async Task Sign_BadFormsValueWithAnInvalidBody_400ForTheParameterBeforeTheBodyIsRead()
    {
        // Act
        var exchange = await SignAsync(SignatureForms.Both, "?forms=nonsense", body: "{\"widgets\":7}"u8.ToArray());

        // Assert
        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, exchange.Json.Value<string>("type"));
    }

    [Fact]
    public async Task Sign_PlainOnlyWithAnInvalidIdempotencyKey_Still400NamingTheHeader()
    {
        // Act: the header is input like any other, checked even when no webhook-id will be made.
        var exchange = await SignAsync(SignatureForms.Both, "?forms=plain", idempotencyKey: "has space");

        // Assert
        Assert.Equal(400, exchange.Status);
        Assert.Contains("Idempotency-Key header must be", exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_WebhookOnlyAnswer_Valid()
    {
        // Arrange
        var signed = await SignAsync(SignatureForms.Webhook, query: null, idempotencyKey: "forms-30");

        // Act: exactly the headers the answer carried, and no X-Signature (it carried none).
        var verified = await VerifyAsync(
            signed.ResponseHeaders[StandardWebhooks.IdHeader].ToString(),
            signed.ResponseHeaders[StandardWebhooks.TimestampHeader].ToString(),
            signed.ResponseHeaders[StandardWebhooks.SignatureHeader].ToString(),
            hex: null);

        // Assert
        Assert.Equal(200, verified.Status);
        Assert.True(verified.Json.Value<bool>("valid"));
    }

    [Fact]
    public async Task Verify_PlainOnlyAnswer_Valid()
    {
        // Arrange
        var signed = await SignAsync(SignatureForms.Plain, query: null);

        // Act
        var verified = await VerifyAsync(id: null, timestamp: null, signature: null, hex: signed.ResponseHeaders[SignatureHeaders.Signature].ToString());

        // Assert
        Assert.Equal(200, verified.Status);
        Assert.True(verified.Json.Value<bool>("valid"));
    }

    private static void AssertForms(HttpExchange exchange, SignatureForms expected, bool canonicalBody)
    {
        var headers = exchange.ResponseHeaders;
        var json = canonicalBody ? null : exchange.Json;
        if (canonicalBody)
        {
            Assert.Equal(OneWidget.Canonical, System.Text.Encoding.UTF8.GetBytes(exchange.Body));
        }

        // Always: what describes the envelope and the key, whatever the forms.
        Assert.Equal("local", headers[SignatureHeaders.KeyId].ToString());
        Assert.Equal(OneWidget.Canonical.Length.ToString(CultureInfo.InvariantCulture), headers[SignatureHeaders.CanonicalLength].ToString());

        if (expected.HasPlain())
        {
            Assert.Equal(OneWidget.SignatureHex, headers[SignatureHeaders.Signature].ToString());
            Assert.Equal($"current:local:{OneWidget.SignatureHex}", headers[SignatureHeaders.Signatures].ToString());
            if (json is not null)
            {
                Assert.Equal(OneWidget.SignatureHex, json.Value<string>("signature"));
                Assert.Equal(OneWidget.SignatureHex, Assert.Single(json["signatures"]!).Value<string>("signature"));
            }
        }
        else
        {
            Assert.False(headers.ContainsKey(SignatureHeaders.Signature));
            Assert.False(headers.ContainsKey(SignatureHeaders.Signatures));
            Assert.Null(json?["signature"]);
            Assert.Null(json?["signatures"]);
        }

        if (expected.HasWebhook())
        {
            // The contract's formula over the canonical bytes, computed here; the id from the Idempotency-Key.
            var id = DerivedWebhookId.ForIdempotencyKey("forms-30", OneWidget.Canonical);
            var timestamp = OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture);
            var signature = DerivedWebhookId.WebhookSignature(Vector.Key, id, timestamp, OneWidget.Canonical);
            Assert.Equal(id, headers[StandardWebhooks.IdHeader].ToString());
            Assert.Equal(timestamp, headers[StandardWebhooks.TimestampHeader].ToString());
            Assert.Equal(signature, headers[StandardWebhooks.SignatureHeader].ToString());
            if (json is not null)
            {
                Assert.Equal(new JObject { ["id"] = id, ["timestamp"] = OneWidgetWebhook.Timestamp, ["signature"] = signature }, json["webhook"]);
            }
        }
        else
        {
            Assert.False(headers.ContainsKey(StandardWebhooks.IdHeader));
            Assert.False(headers.ContainsKey(StandardWebhooks.TimestampHeader));
            Assert.False(headers.ContainsKey(StandardWebhooks.SignatureHeader));
            Assert.Null(json?["webhook"]);
        }
    }

    private static void AssertNothingSigned(HttpExchange exchange)
    {
        Assert.False(exchange.ResponseHeaders.ContainsKey(SignatureHeaders.Signature));
        Assert.False(exchange.ResponseHeaders.ContainsKey(StandardWebhooks.SignatureHeader));
        Assert.Null(exchange.Json["signature"]);
        Assert.Null(exchange.Json["webhook"]);
    }

    private async Task<HttpExchange> SignAsync(SignatureForms deployment, string? query, string? idempotencyKey = null, byte[]? body = null)
    {
        var signer = _services.CreateSigner(time: _time);
        var options = Options.Create(new HttpOptions { SignatureForms = deployment });
        var handler = new SignHandler(new HttpEnvelopeReader(_services.Reader, _services.Streams, options, TestServices.NoBudget), signer, Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<SignHandler>.Instance);
        var exchange = HttpExchange.Post(body ?? OneWidget.Input, query: query);
        if (idempotencyKey is not null)
        {
            exchange.Request.Headers[WebhookRequestHeaders.IdempotencyKey] = idempotencyKey;
        }

        await exchange.ExecuteAsync(await handler.HandleAsync(exchange.Request));
        return exchange;
    }

    private async Task<HttpExchange> VerifyAsync(string? id, string? timestamp, string? signature, string? hex)
    {
        var verifier = new EnvelopeVerifier(_services.Streams, _services.KeySource, _time, Options.Create(new WebhookOptions()));
        var handler = new VerifyHandler(
            new HttpEnvelopeReader(_services.Reader, _services.Streams, Options.Create(new HttpOptions()), TestServices.NoBudget), verifier, Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<VerifyHandler>.Instance);
        var exchange = HttpExchange.Post(OneWidget.Input);
        var headers = exchange.Request.Headers;
        if (id is not null)
        {
            headers[StandardWebhooks.IdHeader] = id;
            headers[StandardWebhooks.TimestampHeader] = timestamp;
            headers[StandardWebhooks.SignatureHeader] = signature;
        }

        if (hex is not null)
        {
            headers[SignatureHeaders.Signature] = hex;
        }

        await exchange.ExecuteAsync(await handler.HandleAsync(exchange.Request));
        return exchange;
    }
}
