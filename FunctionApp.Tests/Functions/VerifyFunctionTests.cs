using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Functions;

/// <summary>The verify function called directly with real <c>DefaultHttpContext</c> requests.</summary>
public sealed class VerifyFunctionTests
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");
    private readonly TestServices _services = new();

    public static TheoryData<string> MalformedSignatures => new()
    {
        "xyz",
        new string('a', 63),
        new string('a', 65),
        new string('g', 64),
        string.Empty,
    };

    public static TheoryData<string> NegativeVectors => Vector.Names(reject: true);

    [Fact]
    public async Task RunAsync_ValidSignatureInHeader_Answers200Valid()
    {
        var exchange = await RunAsync(OneWidget.Input, signatureHeader: OneWidget.SignatureHex);

        Assert.Equal(200, exchange.Status);
        Assert.True(exchange.Json.Value<bool>("valid"));
        Assert.Equal("local", exchange.Json.Value<string>("keyId"));
        Assert.Equal("HMACSHA256", exchange.Json.Value<string>("algorithm"));
        Assert.Equal("no-store", exchange.ResponseHeaders.CacheControl.ToString());
    }

    [Fact]
    public async Task RunAsync_ValidSignatureAndKeyIdInQuery_Answers200Valid()
    {
        var exchange = await RunAsync(OneWidget.Input, query: $"?signature={OneWidget.SignatureHex!.ToUpperInvariant()}&keyId=local");

        Assert.Equal(200, exchange.Status);
        Assert.True(exchange.Json.Value<bool>("valid"));
    }

    [Fact]
    public async Task RunAsync_TamperedEnvelope_Answers200Invalid()
    {
        // A different envelope, the one-widget signature.
        var exchange = await RunAsync(Vector.Load("empty-envelope").Input, signatureHeader: OneWidget.SignatureHex);

        Assert.Equal(200, exchange.Status);
        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("signature-mismatch", exchange.Json.Value<string>("reason"));
    }

    [Fact]
    public async Task RunAsync_TamperedSignature_Answers200Invalid()
    {
        var tampered = (OneWidget.SignatureHex![0] == '0' ? "1" : "0") + OneWidget.SignatureHex[1..];

        var exchange = await RunAsync(OneWidget.Input, signatureHeader: tampered, keyIdHeader: "local");

        Assert.Equal(200, exchange.Status);
        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("local", exchange.Json.Value<string>("keyId"));
        Assert.Equal("signature-mismatch", exchange.Json.Value<string>("reason"));
    }

    [Fact]
    public async Task RunAsync_UnknownKeyId_Answers200InvalidNamingTheReason()
    {
        var exchange = await RunAsync(OneWidget.Input, signatureHeader: OneWidget.SignatureHex, keyIdHeader: "0123456789abcdef0123456789abcdef");

        Assert.Equal(200, exchange.Status);
        Assert.False(exchange.Json.Value<bool>("valid"));
        Assert.Equal("unknown-key-id", exchange.Json.Value<string>("reason"));
    }

    [Theory]
    [MemberData(nameof(MalformedSignatures))]
    public async Task RunAsync_MalformedSignature_Answers400(string signature)
    {
        var exchange = await RunAsync(OneWidget.Input, signatureHeader: signature);

        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, exchange.Json.Value<string>("type"));
        Assert.Contains("hexadecimal", exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_NoSignature_Answers400NamingWhereToSendIt()
    {
        var exchange = await RunAsync(OneWidget.Input);

        Assert.Equal(400, exchange.Status);
        Assert.Contains("X-Signature", exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_HeaderAndQueryDisagree_Answers400()
    {
        var other = new string('0', 64);

        var exchange = await RunAsync(OneWidget.Input, signatureHeader: OneWidget.SignatureHex, query: $"?signature={other}");

        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, exchange.Json.Value<string>("type"));
    }

    [Theory]
    [InlineData("has space")]
    [InlineData("semi;colon")]
    public async Task RunAsync_MalformedKeyId_Answers400(string keyId)
    {
        var exchange = await RunAsync(OneWidget.Input, signatureHeader: OneWidget.SignatureHex, keyIdHeader: keyId);

        Assert.Equal(400, exchange.Status);
        Assert.Contains("key id", exchange.Json.Value<string>("detail"), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(NegativeVectors))]
    public async Task RunAsync_InvalidEnvelope_Answers400WithPathLikeSign(string name)
    {
        var exchange = await RunAsync(Vector.Load(name).Input, signatureHeader: OneWidget.SignatureHex);

        Assert.Equal(400, exchange.Status);
        Assert.Equal(ProblemTypes.InvalidEnvelope, exchange.Json.Value<string>("type"));
        Assert.StartsWith("$", exchange.Json.Value<string>("jsonPath"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_NotJson_Answers415()
    {
        var exchange = await RunAsync(OneWidget.Input, signatureHeader: OneWidget.SignatureHex, contentType: "text/plain");

        Assert.Equal(415, exchange.Status);
        Assert.Equal(ProblemTypes.UnsupportedMediaType, exchange.Json.Value<string>("type"));
    }

    [Fact]
    public async Task RunAsync_BodyOverLimit_Answers413()
    {
        var exchange = await RunAsync(OneWidget.Input, signatureHeader: OneWidget.SignatureHex, maxBodyBytes: 16);

        Assert.Equal(413, exchange.Status);
        Assert.Equal(ProblemTypes.BodyTooLarge, exchange.Json.Value<string>("type"));
    }

    [Fact]
    public async Task RunAsync_ColdStartWithVaultDown_Answers503WithRetryAfter()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        var function = new VerifyFunction(new VerifyHandler(
            new HttpEnvelopeReader(new(), harness.Streams, Options.Create(new HttpOptions()), TestServices.NoBudget), harness.Verifier, Options.Create(new WidgetSigning.Keys.ReceiverOptions()), TestAuthorizers.Open(), NullLogger<VerifyHandler>.Instance));
        var exchange = HttpExchange.Post(OneWidget.Input);
        exchange.Request.Headers[SignatureHeaders.Signature] = OneWidget.SignatureHex;

        // Act
        await exchange.ExecuteAsync(await function.RunAsync(exchange.Request));

        // Assert
        Assert.Equal(503, exchange.Status);
        Assert.Equal(ProblemTypes.KeyUnavailable, exchange.Json.Value<string>("type"));
        Assert.False(string.IsNullOrEmpty(exchange.ResponseHeaders.RetryAfter.ToString()));
    }

    [Fact]
    public async Task RunAsync_ClientDisconnectsWhileSendingBodyAttack_400ClientClosedNotA500()
    {
        // Arrange: the signature header arrives, then half the envelope, then the connection is gone.
        using var aborted = new CancellationTokenSource();
        var function = new VerifyFunction(new VerifyHandler(
            new HttpEnvelopeReader(_services.Reader, _services.Streams, Options.Create(new HttpOptions()), TestServices.NoBudget),
            new EnvelopeVerifier(_services.Streams, _services.KeySource),
            Options.Create(new WidgetSigning.Keys.ReceiverOptions()),
            TestAuthorizers.Open(), NullLogger<VerifyHandler>.Instance));
        var exchange = HttpExchange.Post([]);
        exchange.Request.Headers[SignatureHeaders.Signature] = new string('a', 64);
        exchange.Request.ContentLength = null;
        exchange.Request.Body = new FailingStream(Vector.Load("one-widget").Input[..30], () => new OperationCanceledException(aborted.Token), aborted.Cancel);
        exchange.Context.RequestAborted = aborted.Token;

        // Act
        var result = await function.RunAsync(exchange.Request);

        // Assert
        var problem = Assert.IsType<ProblemResult>(result);
        Assert.Equal(400, problem.Status);
        Assert.Equal(ProblemTypes.ClientClosedRequest, problem.Type);
        Assert.Equal(0, _services.Streams.SmallPoolInUseSize + _services.Streams.LargePoolInUseSize);
    }

    private async Task<HttpExchange> RunAsync(
        byte[] body,
        string? signatureHeader = null,
        string? keyIdHeader = null,
        string? query = null,
        string contentType = "application/json",
        long maxBodyBytes = 16 * 1024 * 1024)
    {
        var function = new VerifyFunction(new VerifyHandler(
            new HttpEnvelopeReader(_services.Reader, _services.Streams, Options.Create(new HttpOptions { MaxRequestBodyBytes = (int)maxBodyBytes }), TestServices.NoBudget),
            new EnvelopeVerifier(_services.Streams, _services.KeySource),
            Options.Create(new WidgetSigning.Keys.ReceiverOptions()),
            TestAuthorizers.Open(), NullLogger<VerifyHandler>.Instance));
        var exchange = HttpExchange.Post(body, contentType, query);
        if (signatureHeader is not null)
        {
            exchange.Request.Headers[SignatureHeaders.Signature] = signatureHeader;
        }

        if (keyIdHeader is not null)
        {
            exchange.Request.Headers[SignatureHeaders.KeyId] = keyIdHeader;
        }

        await exchange.ExecuteAsync(await function.RunAsync(exchange.Request));
        return exchange;
    }
}
