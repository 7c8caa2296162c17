using System.Text;
using FunctionApp.Functions;
using WidgetSigning.Http;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Functions;

/// <summary>POST /api/sign, hosted in the WebJobs SDK host with the app's Startup, called with real HttpRequests.</summary>
public sealed class SignFunctionTests : IClassFixture<SignHostFixture>
{
    private readonly FunctionsTestHost _host;

    public SignFunctionTests(SignHostFixture fixture) => _host = fixture.Host;

    public static TheoryData<string> PositiveVectors => Vector.Names(reject: false);

    public static TheoryData<string> NegativeVectors => Vector.Names(reject: true);

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task RunAsync_PositiveVector_Returns200WithSignatureInBodyAndHeaders(string name)
    {
        // Arrange
        var vector = Vector.Load(name);
        var request = TestRequests.Post("/api/sign", vector.Input);

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        Assert.Equal(200, response.Status);
        Assert.StartsWith("application/json", response.ContentType, StringComparison.Ordinal);
        var json = response.Json;
        Assert.Equal("HMACSHA256", (string?)json["algorithm"]);
        Assert.Equal("local", (string?)json["keyId"]);
        Assert.Equal(vector.SignatureHex, (string?)json["signature"]);
        Assert.Equal(vector.WidgetCount, (int?)json["widgetCount"]);
        Assert.Equal(vector.CanonicalLength, (long?)json["canonicalLength"]);
        Assert.Equal(vector.SignatureHex, response.Header(SignatureHeaders.Signature));
        Assert.Equal("local", response.Header(SignatureHeaders.KeyId));
        Assert.Equal("HMACSHA256", response.Header(SignatureHeaders.Algorithm));
    }

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task RunAsync_CanonicalOutput_StreamsTheExactSignedBytes(string name)
    {
        // Arrange
        var vector = Vector.Load(name);
        var request = TestRequests.Post("/api/sign", vector.Input, query: "?output=canonical");

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal(vector.Canonical, response.Body);
        Assert.Equal(vector.SignatureHex, response.Header(SignatureHeaders.Signature));
        Assert.Equal(vector.CanonicalLength.ToString(), response.Header(SignatureHeaders.CanonicalLength));
    }

    [Theory]
    [MemberData(nameof(NegativeVectors))]
    public async Task RunAsync_NegativeVector_Returns400ProblemAndNoSignature(string name)
    {
        // Arrange
        var request = TestRequests.Post("/api/sign", Vector.Load(name).Input);

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        AssertProblem(response, 400, ProblemTypes.InvalidEnvelope);
        Assert.StartsWith("$", (string?)response.Json["jsonPath"], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("""{"widgets":[{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}]}""", "$.widgets[0]", "property0")]
    [InlineData("""{"widgets":{}}""", "$.widgets", "array")]
    [InlineData("""{"widgets":[],"extra":1}""", "$.extra", "Unknown member 'extra'")]
    [InlineData("""{"widgets":[1]}""", "$.widgets[0]", "object")]
    [InlineData("""{"widgets":[]} trailing""", "$", "not valid JSON")]
    [InlineData("", "$", "empty")]
    public async Task RunAsync_InvalidEnvelope_Returns400NamingThePath(string body, string path, string detailFragment)
    {
        // Arrange
        var request = TestRequests.Post("/api/sign", Encoding.UTF8.GetBytes(body));

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        AssertProblem(response, 400, ProblemTypes.InvalidEnvelope);
        Assert.Equal(path, (string?)response.Json["jsonPath"]);
        Assert.Contains(detailFragment, (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task RunAsync_BodyOverLimit_Returns413(bool declaresLength)
    {
        // Arrange: a valid envelope just over the configured limit, with and without Content-Length.
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[]}" + new string(' ', (int)SignHostFixture.MaxBodyBytes));
        var request = TestRequests.Post("/api/sign", body, sendContentLength: declaresLength);

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        AssertProblem(response, 413, ProblemTypes.BodyTooLarge);
        Assert.Contains("Http:MaxRequestBodyBytes", (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("text/plain")]
    [InlineData("application/xml")]
    [InlineData("application/json; charset=utf-16")]
    [InlineData("application/json; charset=\"utf-16\"")]
    [InlineData("application/json; charset=\"latin1\"")]
    [InlineData(null)]
    public async Task RunAsync_NonJsonContentType_Returns415(string? contentType)
    {
        // Arrange
        var request = TestRequests.Post("/api/sign", Vector.Load("one-widget").Input, contentType);

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        AssertProblem(response, 415, ProblemTypes.UnsupportedMediaType);
    }

    [Theory]
    [InlineData("application/json; charset=utf-8")]
    [InlineData("application/json; charset=\"utf-8\"")]
    [InlineData("application/json;charset=\"UTF-8\"")]
    [InlineData("application/vnd.widgets+json")]
    public async Task RunAsync_JsonContentTypeVariants_AreAccepted(string contentType)
    {
        // Arrange
        var vector = Vector.Load("one-widget");
        var request = TestRequests.Post("/api/sign", vector.Input, contentType);

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal(vector.SignatureHex, (string?)response.Json["signature"]);
    }

    [Fact]
    public async Task RunAsync_UnknownOutputOption_Returns400()
    {
        // Arrange
        var request = TestRequests.Post("/api/sign", Vector.Load("one-widget").Input, query: "?output=xml");

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        AssertProblem(response, 400, ProblemTypes.InvalidRequest);
    }

    [Fact]
    public async Task RunAsync_InvalidUtf8_Returns400()
    {
        // Arrange: a lone 0xFF byte inside a string value.
        var vector = Encoding.UTF8.GetString(Vector.Load("one-widget").Input).Replace("My3toIbn4hdHhOZCAo17pcr8", "X\u00ffX", StringComparison.Ordinal);
        var bytes = Encoding.UTF8.GetBytes(vector);
        var index = Array.IndexOf(bytes, (byte)0xC3);
        bytes[index] = 0xFF;

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", bytes));

        // Assert
        AssertProblem(response, 400, ProblemTypes.InvalidEnvelope);
        Assert.Contains("UTF-8", (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_64RequestsInParallel_EachGetsItsOwnSignatureAndThePoolIsEmptyAfterwards()
    {
        // Arrange: 64 different envelopes; expected signatures from Newtonsoft + HMACSHA256.HashData, not our code.
        var streams = _host.GetService<Microsoft.IO.RecyclableMemoryStreamManager>();
        var cases = Enumerable.Range(1, 64).Select(seed =>
        {
            var (_, theirs) = RandomEnvelopes.Create(seed * 104729, widgets: seed);
            var body = SeedShapes.SerializeWithNewtonsoft(theirs);
            var expected = Convert.ToHexString(System.Security.Cryptography.HMACSHA256.HashData(Vector.Key, body)).ToLowerInvariant();
            return (Body: body, Expected: expected);
        }).ToArray();

        // Act
        var responses = await Task.WhenAll(cases.Select(c => Task.Run(() => _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", c.Body)))));

        // Assert
        Assert.Equal(cases.Select(c => c.Expected), responses.Select(r => (string?)r.Json["signature"]));
        Assert.Equal(0, streams.SmallPoolInUseSize);
        Assert.Equal(0, streams.LargePoolInUseSize);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task RunAsync_SeedEnvelope_ReturnsEveryPooledBlock(bool canonicalOutput)
    {
        // Arrange: a body and canonical JSON of ~1 MB each span many pooled blocks.
        var streams = _host.GetService<Microsoft.IO.RecyclableMemoryStreamManager>();
        var before = (Small: streams.SmallPoolInUseSize, Large: streams.LargePoolInUseSize);
        var request = TestRequests.Post("/api/sign", Vector.Load("seed-3000-widgets").Input, query: canonicalOutput ? "?output=canonical" : null);

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal(before.Small, streams.SmallPoolInUseSize);
        Assert.Equal(before.Large, streams.LargePoolInUseSize);
        Assert.True(streams.SmallPoolFreeSize > 0);
    }

    [Fact]
    public async Task StartAsync_ShortLocalKey_FailsNamingTheSetting()
    {
        // Arrange
        var settings = SignHostFixture.Settings();
        settings["Signing:LocalKey"] = Convert.ToBase64String(new byte[16]);

        // Act
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => FunctionsTestHost.StartAsync(settings, typeof(SignFunction)));

        // Assert
        Assert.Contains("Signing:LocalKey", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(settings["Signing:LocalKey"]!, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("application/json; charset=\"utf-8\"")]
    [InlineData("application/json; charset=\"UTF-8\"")]
    public async Task RunAsync_QuotedUtf8Charset_SignedNot415(string contentType)
    {
        // Arrange: the quoted form is the same parameter value (RFC 9110 §5.6.6).
        var vector = Vector.Load("one-widget");

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input, contentType));

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal(vector.SignatureHex, (string?)response.Json["signature"]);
    }

    [Theory]
    [InlineData("gzip")]
    [InlineData("br")]
    [InlineData("identity, gzip")]
    [InlineData("x-\u001b[31m")]
    public async Task RunAsync_ContentEncodingAttack_415NamingTheCodingAndNothingSigned(string coding)
    {
        // Arrange: a plain body labelled compressed was signed as is.
        var request = TestRequests.Post("/api/sign", Vector.Load("one-widget").Input);
        request.Headers.ContentEncoding = coding;

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        AssertProblem(response, 415, ProblemTypes.UnsupportedMediaType);
        Assert.Contains("Content-Encoding", (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.DoesNotContain("\u001b", (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_IdentityContentEncoding_Signed()
    {
        // Arrange
        var vector = Vector.Load("one-widget");
        var request = TestRequests.Post("/api/sign", vector.Input);
        request.Headers.ContentEncoding = "identity";

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal(vector.SignatureHex, (string?)response.Json["signature"]);
    }

    private static void AssertProblem(HttpResponseSnapshot response, int status, string type)
    {
        Assert.Equal(status, response.Status);
        Assert.StartsWith("application/problem+json", response.ContentType, StringComparison.Ordinal);
        var json = response.Json;
        Assert.Equal(type, (string?)json["type"]);
        Assert.Equal(status, (int?)json["status"]);
        Assert.False(string.IsNullOrWhiteSpace((string?)json["detail"]));
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.DoesNotContain("   at ", response.Text, StringComparison.Ordinal);
    }
}
