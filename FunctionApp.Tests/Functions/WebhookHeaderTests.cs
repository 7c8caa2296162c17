using System.Globalization;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// The Standard Webhooks headers on <c>/api/sign</c> (from <c>Idempotency-Key</c>, or new) and on <c>/api/verify</c>
/// (with the timestamp tolerance), the labelled signatures, and <c>GET /api/keys</c>; the function classes called directly
/// with real <c>DefaultHttpContext</c> requests and a hand-moved clock.
/// </summary>
public sealed class WebhookHeaderTests
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");
    private static readonly WebhookVector OneWidgetWebhook = WebhookVector.Load("one-widget");
    private readonly TestServices _services = new();
    private FakeTimeProvider _time = new(DateTimeOffset.FromUnixTimeSeconds(OneWidgetWebhook.Timestamp));

    public static TheoryData<string> InvalidIdempotencyKeys => new()
    {
        string.Empty,
        "has space",
        "dot.ted",
        "comma,separated",
        "ünïcode",
        new string('a', StandardWebhooks.MaxIdLength + 1),
    };

    public static TheoryData<string, string, string, string> MalformedWebhookHeaders => new()
    {
        // id, timestamp, signature, what the 400 names
        { "bad id!", "1795000259", OneWidgetWebhook.Signature, "webhook-id header must be" },
        { new string('a', 129), "1795000259", OneWidgetWebhook.Signature, "webhook-id header must be" },
        { "msg_1", "-5", OneWidgetWebhook.Signature, "webhook-timestamp header must be" },
        { "msg_1", "1795000259.5", OneWidgetWebhook.Signature, "webhook-timestamp header must be" },
        { "msg_1", new string('9', 13), OneWidgetWebhook.Signature, "webhook-timestamp header must be" },
        { "msg_1", "1795000259", "v1,not-base64", "must be base64 of 32 bytes" },
        { "msg_1", "1795000259", "v1," + Convert.ToBase64String(new byte[31]), "must be base64 of 32 bytes" },
        { "msg_1", "1795000259", "v1a,abc", "must be base64 of 64 bytes" },
        { "msg_1", "1795000259", "v2,abc", "has no v1,<base64> or v1a,<base64> entry" },
        { "msg_1", "1795000259", string.Join(' ', Enumerable.Repeat(OneWidgetWebhook.Signature, 17)), "more than 16 entries" },
        { "msg_1", "1795000259", "v1," + new string('A', 1100), "longer than 1024 characters" },
    };

    [Fact]
    public async Task Sign_WithIdempotencyKey_WebhookIdDerivedFromKeyAndCanonicalBytesAndSignatureMatchesTheSpec()
    {
        // Act
        var exchange = await SignAsync(idempotencyKey: "order-42", query: "?output=canonical");

        // Assert: webhook-id is the documented derivation (computed here, not by the service), and webhook-signature
        // is the spec's formula over the id the answer carries (the known answers for a given id: WebhookKnownAnswerTests).
        var id = exchange.ResponseHeaders[StandardWebhooks.IdHeader].ToString();
        var timestamp = exchange.ResponseHeaders[StandardWebhooks.TimestampHeader].ToString();
        Assert.Equal(200, exchange.Status);
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey("order-42", OneWidget.Canonical), id);
        Assert.True(StandardWebhooks.IsValidId(id));
        Assert.Equal(OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), timestamp);
        Assert.Equal(DerivedWebhookId.WebhookSignature(Vector.Key, id, timestamp, OneWidget.Canonical), exchange.ResponseHeaders[StandardWebhooks.SignatureHeader].ToString());
        Assert.Equal(OneWidget.SignatureHex, exchange.ResponseHeaders[SignatureHeaders.Signature].ToString());
        Assert.Equal($"current:local:{OneWidget.SignatureHex}", exchange.ResponseHeaders[SignatureHeaders.Signatures].ToString());
        Assert.Equal(OneWidget.Canonical, System.Text.Encoding.UTF8.GetBytes(exchange.Body));
    }

    [Fact]
    public async Task Sign_IdempotencyKeyReusedWithDifferentContentAttack_DifferentWebhookIdsSoNeitherIsDropped()
    {
        // Arrange: one key, two different envelopes.
        var other = Vector.Load("escapes-and-unicode");

        // Act
        var first = await SignAsync(idempotencyKey: "order-42", body: OneWidget.Input);
        var second = await SignAsync(idempotencyKey: "order-42", body: other.Input);

        // Assert: both signed, under two different ids, neither the raw key.
        var firstId = first.ResponseHeaders[StandardWebhooks.IdHeader].ToString();
        var secondId = second.ResponseHeaders[StandardWebhooks.IdHeader].ToString();
        Assert.Equal((200, 200), (first.Status, second.Status));
        Assert.NotEqual(firstId, secondId);
        Assert.NotEqual("order-42", firstId);
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey("order-42", other.Canonical), secondId);
    }

    [Fact]
    public async Task Sign_ByteIdenticalRetryWithIdempotencyKey_SameWebhookIdSoReceiversDedupe()
    {
        // Act
        var first = await SignAsync(idempotencyKey: "order-42");
        _time.Advance(TimeSpan.FromSeconds(30));
        var retry = await SignAsync(idempotencyKey: "order-42");

        // Assert: same id (what receivers dedupe on), a new timestamp and so a new webhook-signature.
        Assert.Equal(first.ResponseHeaders[StandardWebhooks.IdHeader].ToString(), retry.ResponseHeaders[StandardWebhooks.IdHeader].ToString());
        Assert.NotEqual(first.ResponseHeaders[StandardWebhooks.TimestampHeader].ToString(), retry.ResponseHeaders[StandardWebhooks.TimestampHeader].ToString());
    }

    [Fact]
    public async Task Sign_IdempotencyKeyEqualToAnotherNamespacesIdAttack_IdStaysInTheHttpNamespace()
    {
        // Arrange: a caller names its key after a generated id and after a queue-derived id, hoping to collide with them.
        var generated = (await SignAsync()).ResponseHeaders[StandardWebhooks.IdHeader].ToString();
        var queueId = DerivedWebhookId.ForQueueMessage("5f1c0d6e-1b2a-4c3d-9e8f-001122334455", OneWidget.Canonical);

        // Act
        var asGenerated = await SignAsync(idempotencyKey: generated);
        var asQueue = await SignAsync(idempotencyKey: queueId);

        // Assert: an Idempotency-Key only ever yields idem_ ids, never the id it names.
        foreach (var answer in new[] { asGenerated, asQueue })
        {
            var id = answer.ResponseHeaders[StandardWebhooks.IdHeader].ToString();
            Assert.StartsWith("idem_", id, StringComparison.Ordinal);
            Assert.NotEqual(generated, id);
            Assert.NotEqual(queueId, id);
        }
    }

    [Fact]
    public async Task Sign_WithoutIdempotencyKey_NewUniqueIdPerRequestAndLabelledJson()
    {
        // Act
        var first = await SignAsync();
        var second = await SignAsync();

        // Assert
        var id = first.Json["webhook"]!.Value<string>("id")!;
        Assert.StartsWith("msg_", id, StringComparison.Ordinal);
        Assert.True(StandardWebhooks.IsValidId(id));
        Assert.NotEqual(id, second.Json["webhook"]!.Value<string>("id"));
        Assert.Equal(id, first.ResponseHeaders[StandardWebhooks.IdHeader].ToString());
        Assert.Equal(OneWidget.SignatureHex, first.Json.Value<string>("signature"));
        var labelled = Assert.Single(first.Json["signatures"]!);
        Assert.Equal(("local", "current", OneWidget.SignatureHex), (labelled.Value<string>("keyId"), labelled.Value<string>("state"), labelled.Value<string>("signature")));
    }

    [Theory]
    [MemberData(nameof(InvalidIdempotencyKeys))]
    public async Task Sign_InvalidIdempotencyKeyAttack_400NamingTheHeaderAndNothingSigned(string key)
    {
        var exchange = await SignAsync(idempotencyKey: key);

        Assert.Equal(400, exchange.Status);
        Assert.Contains("Idempotency-Key header must be", exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
        Assert.False(exchange.ResponseHeaders.ContainsKey(SignatureHeaders.Signature));
    }

    [Fact]
    public async Task Verify_WebhookHeadersOfASignedAnswer_Valid()
    {
        var exchange = await VerifyAsync(OneWidgetWebhook.Id, OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), OneWidgetWebhook.Signature);

        Assert.Equal(200, exchange.Status);
        Assert.True(exchange.Json.Value<bool>("valid"));
        Assert.Equal("local", exchange.Json.Value<string>("keyId"));
    }

    [Fact]
    public async Task Verify_WebhookHeadersWithOtherId_InvalidSignatureMismatch()
    {
        var exchange = await VerifyAsync("msg_other", OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), OneWidgetWebhook.Signature);

        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("signature-mismatch", exchange.Json.Value<string>("reason"));
    }

    [Fact]
    public async Task Verify_ReplayOutsideToleranceAttack_InvalidTimestampTooOld()
    {
        // Arrange: the verifier's clock is 5 minutes and 1 second past the signed timestamp.
        _time.Advance(TimeSpan.FromMinutes(5) + TimeSpan.FromSeconds(1));

        // Act
        var exchange = await VerifyAsync(OneWidgetWebhook.Id, OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), OneWidgetWebhook.Signature);

        // Assert
        Assert.Equal(200, exchange.Status);
        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("timestamp-too-old", exchange.Json.Value<string>("reason"));
    }

    [Fact]
    public async Task Verify_AtTheToleranceEdge_StillValid()
    {
        _time.Advance(TimeSpan.FromMinutes(5));

        var exchange = await VerifyAsync(OneWidgetWebhook.Id, OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), OneWidgetWebhook.Signature);

        Assert.True(exchange.Json.Value<bool>("valid"));
    }

    [Fact]
    public async Task Verify_TimestampFromTheFutureAttack_InvalidTimestampInFuture()
    {
        // Arrange: the verifier's clock is 5 minutes and 1 second before the signed timestamp (a fake clock only goes forward).
        _time = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(OneWidgetWebhook.Timestamp) - (TimeSpan.FromMinutes(5) + TimeSpan.FromSeconds(1)));

        var exchange = await VerifyAsync(OneWidgetWebhook.Id, OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), OneWidgetWebhook.Signature);

        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("timestamp-in-future", exchange.Json.Value<string>("reason"));
    }

    [Theory]
    [MemberData(nameof(MalformedWebhookHeaders))]
    public async Task Verify_MalformedWebhookHeaderAttack_400NamingTheHeader(string id, string timestamp, string signature, string expected)
    {
        var exchange = await VerifyAsync(id, timestamp, signature);

        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, exchange.Json.Value<string>("type"));
        Assert.Contains(expected, exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_OnlySomeWebhookHeaders_400NamingTheMissingOne()
    {
        var exchange = await VerifyAsync(OneWidgetWebhook.Id, timestamp: null, OneWidgetWebhook.Signature);

        Assert.Equal(400, exchange.Status);
        Assert.Contains("webhook-timestamp header is missing", exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_WebhookAndWrongHexTogether_InvalidBecauseBothMustHold()
    {
        var exchange = await VerifyAsync(OneWidgetWebhook.Id, OneWidgetWebhook.Timestamp.ToString(CultureInfo.InvariantCulture), OneWidgetWebhook.Signature, hex: new string('0', 64));

        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("signature-mismatch", exchange.Json.Value<string>("reason"));
    }

    [Theory]
    [InlineData("Idempotency-Key")]
    [InlineData("webhook-id")]
    [InlineData("X-Signature")]
    public async Task SignAndVerify_RepeatedHeaderJoinedByTheForwardingHostAttack_400SaysGivenOnceNotSigned(string header)
    {
        // Arrange: the isolated app's host forwards a header given twice as one line, "a, b" (SocketsHttpHandler).
        const string Joined = "order-1, order-2";

        // Act
        var exchange = header == WebhookRequestHeaders.IdempotencyKey
            ? await SignAsync(idempotencyKey: Joined)
            : header == StandardWebhooks.IdHeader
                ? await VerifyAsync(Joined, "1795000259", OneWidgetWebhook.Signature)
                : await VerifyAsync(null, null, null, hex: Joined);

        // Assert: the 400 names the real problem (given twice), not the value's format; nothing signed or verified.
        Assert.Equal(400, exchange.Status);
        var detail = exchange.Json.Value<string>("detail")!;
        Assert.Contains("must be given once", detail, StringComparison.Ordinal);
        Assert.Contains(header, detail, StringComparison.Ordinal);
        Assert.False(exchange.ResponseHeaders.ContainsKey(SignatureHeaders.Signature));
        Assert.Null(exchange.Json["valid"]);
    }

    [Fact]
    public async Task Keys_LocalKey_ListsIdAndStateAndNoKeyMaterial()
    {
        // Arrange
        var function = new KeysHandler(_services.KeySource, TestAuthorizers.Open(), NullLogger<KeysHandler>.Instance);
        var exchange = HttpExchange.Post([]);

        // Act
        await exchange.ExecuteAsync(await function.HandleAsync(exchange.Request));

        // Assert
        Assert.Equal(200, exchange.Status);
        var receiver = Assert.Single(exchange.Json["receivers"]!);
        Assert.Equal("default", receiver.Value<string>("receiver"));
        var key = Assert.Single(receiver["keys"]!);
        Assert.Equal(("local", "current"), (key.Value<string>("keyId"), key.Value<string>("state")));
        KeyMaterialAssert.Absent(exchange.Body, Vector.Key);
    }

    private async Task<HttpExchange> SignAsync(string? idempotencyKey = null, string? query = null, byte[]? body = null)
    {
        var signer = _services.CreateSigner(time: _time);
        var function = new SignHandler(
            new HttpEnvelopeReader(_services.Reader, _services.Streams, Options.Create(new HttpOptions()), TestServices.NoBudget), signer, Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<SignHandler>.Instance);
        var exchange = HttpExchange.Post(body ?? OneWidget.Input, query: query);
        if (idempotencyKey is not null)
        {
            exchange.Request.Headers[WebhookRequestHeaders.IdempotencyKey] = idempotencyKey;
        }

        await exchange.ExecuteAsync(await function.HandleAsync(exchange.Request));
        return exchange;
    }

    private async Task<HttpExchange> VerifyAsync(string? id, string? timestamp, string? signature, string? hex = null)
    {
        var verifier = new EnvelopeVerifier(_services.Streams, _services.KeySource, _time, Options.Create(new WebhookOptions()));
        var function = new VerifyHandler(
            new HttpEnvelopeReader(_services.Reader, _services.Streams, Options.Create(new HttpOptions()), TestServices.NoBudget), verifier, Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<VerifyHandler>.Instance);
        var exchange = HttpExchange.Post(OneWidget.Input);
        var headers = exchange.Request.Headers;
        if (id is not null)
        {
            headers[StandardWebhooks.IdHeader] = id;
        }

        if (timestamp is not null)
        {
            headers[StandardWebhooks.TimestampHeader] = timestamp;
        }

        if (signature is not null)
        {
            headers[StandardWebhooks.SignatureHeader] = signature;
        }

        if (hex is not null)
        {
            headers[SignatureHeaders.Signature] = hex;
        }

        await exchange.ExecuteAsync(await function.HandleAsync(exchange.Request));
        return exchange;
    }
}
