using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Every known-answer vector through the published isolated app, over a socket, through the worker protocol: the
/// canonical bytes and the signature are the contract's, byte for byte; a rejected input is a 400 problem naming the JSON
/// path with nothing signed; the Standard Webhooks answer verifies with the spec's own library.
/// </summary>
public sealed class IsolatedVectorTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    public static TheoryData<string> PositiveVectors() => Vector.Names(reject: false);

    public static TheoryData<string> NegativeVectors() => Vector.Names(reject: true);

    public static TheoryData<string> WebhookVectors() => WebhookVector.Names();

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task Sign_PositiveVector_AnswersTheCanonicalBytesAndTheKnownSignature(string name)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign?output=canonical", Json(vector.Input));
        var body = await response.Content.ReadAsByteArrayAsync();

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(vector.Canonical, body);
        Assert.Equal(vector.SignatureHex, Header(response, "X-Signature"));
    }

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task Sign_PositiveVectorAsJson_AnswersTheSignatureKeyAndCounts(string name)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign", Json(vector.Input));
        var json = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(vector.SignatureHex, (string?)json["signature"]);
        Assert.Equal("local", (string?)json["keyId"]);
        Assert.Equal(vector.WidgetCount, (int?)json["widgetCount"]);
        Assert.Equal(vector.CanonicalLength, (long?)json["canonicalLength"]);
    }

    [Theory]
    [MemberData(nameof(NegativeVectors))]
    public async Task Sign_NegativeVector_400ProblemNamingTheJsonPathAndNothingSigned(string name)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign?output=canonical", Json(vector.Input));
        var problem = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.NotNull(problem["jsonPath"]);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Theory]
    [MemberData(nameof(WebhookVectors))]
    public async Task Sign_WebhookVector_TheSpecsLibraryVerifiesTheAnswer(string name)
    {
        // Arrange: the vector's id as the Idempotency-Key; webhook-id is derived from it and the canonical bytes,
        // so the signature is checked with the id the answer carries.
        var webhook = WebhookVector.Load(name);
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign?output=canonical") { Content = Json(webhook.Vector.Input) };
        request.Headers.Add("Idempotency-Key", webhook.Id);

        // Act
        using var response = await fixture.Client.SendAsync(request);
        var body = await response.Content.ReadAsByteArrayAsync();
        var library = await VerifyWithTheSpecsLibraryAsync(response, body, webhook.Secret);

        // Assert: the library, and the spec's formula computed here, both over the vector's canonical bytes.
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var id = Header(response, "webhook-id");
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey(webhook.Id, webhook.Vector.Canonical), id);
        Assert.True(library.ExitCode == 0, library.Output + library.Error);
        var signed = Encoding.UTF8.GetBytes($"{id}.{Header(response, "webhook-timestamp")}.").Concat(webhook.Vector.Canonical).ToArray();
        Assert.Equal("v1," + Convert.ToBase64String(HMACSHA256.HashData(Convert.FromBase64String(webhook.Key), signed)), Header(response, "webhook-signature"));
    }

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task Sign_PositiveVectorPlainOnly_TheKnownSignatureAndNoWebhookHeaders(string name)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign?output=canonical&forms=plain", Json(vector.Input));
        var body = await response.Content.ReadAsByteArrayAsync();

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(vector.Canonical, body);
        Assert.Equal(vector.SignatureHex, Header(response, "X-Signature"));
        Assert.Null(Header(response, "webhook-id"));
        Assert.Null(Header(response, "webhook-signature"));
    }

    [Theory]
    [MemberData(nameof(WebhookVectors))]
    public async Task Sign_WebhookVectorWebhookOnly_TheSpecsLibraryVerifiesAndNoXSignature(string name)
    {
        // Arrange
        var webhook = WebhookVector.Load(name);
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign?output=canonical&forms=webhook") { Content = Json(webhook.Vector.Input) };
        request.Headers.Add("Idempotency-Key", webhook.Id);

        // Act
        using var response = await fixture.Client.SendAsync(request);
        var body = await response.Content.ReadAsByteArrayAsync();
        var library = await VerifyWithTheSpecsLibraryAsync(response, body, webhook.Secret);

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(webhook.Vector.Canonical, body);
        Assert.True(library.ExitCode == 0, library.Output + library.Error);
        var id = Header(response, "webhook-id");
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey(webhook.Id, webhook.Vector.Canonical), id);
        var signed = Encoding.UTF8.GetBytes($"{id}.{Header(response, "webhook-timestamp")}.").Concat(webhook.Vector.Canonical).ToArray();
        Assert.Equal("v1," + Convert.ToBase64String(HMACSHA256.HashData(Convert.FromBase64String(webhook.Key), signed)), Header(response, "webhook-signature"));
        Assert.Null(Header(response, "X-Signature"));
        Assert.Null(Header(response, "X-Signatures"));
    }

    [Fact]
    public async Task Sign_UnknownFormsAttack_400NamingTheParameterNever500()
    {
        // Act
        using var response = await fixture.Client.PostAsync("/api/sign?forms=%FF", Json(Vector.Load("one-widget").Input));
        var problem = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains("Query parameter 'forms'", (string?)problem["detail"], StringComparison.Ordinal);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Verify_TheKnownSignature_IsValid()
    {
        // Arrange
        var vector = Vector.Load("one-widget");
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/verify") { Content = Json(vector.Input) };
        request.Headers.Add("X-Signature", vector.SignatureHex);

        // Act
        using var response = await fixture.Client.SendAsync(request);
        var json = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.True((bool?)json["valid"]);
    }

    [Fact]
    public async Task Keys_Get_ListsTheLocalKeyAndNoKeyMaterial()
    {
        // Act
        using var response = await fixture.Client.GetAsync("/api/keys?receiver=default");
        var body = await response.Content.ReadAsStringAsync();

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("local", (string?)JObject.Parse(body)["keys"]![0]!["keyId"]);
        KeyMaterialAssert.Absent(body, Vector.Key);
    }

    private static ByteArrayContent Json(byte[] body)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        return content;
    }

    // The answer's body and headers as files, verified by the standardwebhooks library (X-Signature passed along when
    // the answer has one, so the library sees the headers as a receiver would).
    private static async Task<ExternalTool> VerifyWithTheSpecsLibraryAsync(HttpResponseMessage response, byte[] body, string secret)
    {
        var directory = Directory.CreateTempSubdirectory("isolated-webhook-").FullName;
        var bodyFile = Path.Combine(directory, "canonical.json");
        var headersFile = Path.Combine(directory, "headers.json");
        await File.WriteAllBytesAsync(bodyFile, body);
        var headers = new JObject
        {
            ["webhook-id"] = Header(response, "webhook-id"),
            ["webhook-timestamp"] = Header(response, "webhook-timestamp"),
            ["webhook-signature"] = Header(response, "webhook-signature"),
        };
        if (Header(response, "X-Signature") is { } signature)
        {
            headers["x-signature"] = signature;
        }

        await File.WriteAllTextAsync(headersFile, headers.ToString());
        return await ExternalTool.VerifyWebhookAsync(bodyFile, headersFile, secret);
    }

    private static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values) ? string.Join(",", values) : null;
}
