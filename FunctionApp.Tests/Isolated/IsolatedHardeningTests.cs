using System.Net;
using System.Net.Http.Headers;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Request hardening as a client sees it, against the published isolated app in tools/WorkerHost over sockets:
/// an <c>Idempotency-Key</c> bound to the content, echoed text escaped, the quoted charset, <c>Content-Encoding</c>.
/// </summary>
public sealed class IsolatedHardeningTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    [Fact]
    public async Task Sign_IdempotencyKeyReusedWithDifferentContentAttack_DifferentWebhookIdsAndARetryKeepsItsId()
    {
        // Arrange: one key, two different envelopes, then a byte-identical retry of the first.
        var one = Vector.Load("one-widget");
        var other = Vector.Load("escapes-and-unicode");

        // Act
        var first = await SignAsync(one.Input, "order-42");
        var second = await SignAsync(other.Input, "order-42");
        var retry = await SignAsync(one.Input, "order-42");

        // Assert: 200s; the first and the retry share the documented derived id, the different envelope has its own.
        Assert.Equal((HttpStatusCode.OK, HttpStatusCode.OK, HttpStatusCode.OK), (first.Status, second.Status, retry.Status));
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey("order-42", one.Canonical), first.Id);
        Assert.Equal(DerivedWebhookId.ForIdempotencyKey("order-42", other.Canonical), second.Id);
        Assert.NotEqual(first.Id, second.Id);
        Assert.Equal(first.Id, retry.Id);
    }

    [Theory]
    [InlineData("x\\u001b[31mRED", "x\\u001B[31mRED")]
    [InlineData("abc\\u202Egnp", "abc\\u202Egnp")]
    [InlineData("c1\\u009b2J", "c1\\u009B2J")]
    public async Task Sign_ControlOrBidiCharacterInAMemberNameAttack_EscapedInDetailJsonPathAndLogs(string nameEscapedInJson, string echoed)
    {
        // Arrange: an unknown member whose name holds ESC, RLO or a C1 CSI (JSON-escaped in the body).
        var body = System.Text.Encoding.UTF8.GetBytes("{\"widgets\":[],\"" + nameEscapedInJson + "\":\"v\"}");
        var mark = fixture.Host.Output.Length;

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign", Json(body));
        var text = await response.Content.ReadAsStringAsync();
        var problem = JObject.Parse(text);
        var logged = await WaitForOutputAsync(mark, "rejected a request");

        // Assert: the 400 names the member escaped, in detail and jsonPath; neither the answer nor the log has the raw character.
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains(echoed, problem.Value<string>("detail"), StringComparison.Ordinal);
        Assert.Contains(echoed.Replace("\\", "\\\\", StringComparison.Ordinal), problem.Value<string>("jsonPath"), StringComparison.Ordinal);
        foreach (var raw in new[] { "\u001b", "\u202E", "\u009b" })
        {
            Assert.DoesNotContain(raw, problem.Value<string>("detail")!, StringComparison.Ordinal);
            Assert.DoesNotContain(raw, problem.Value<string>("jsonPath")!, StringComparison.Ordinal);
            Assert.DoesNotContain(raw, logged, StringComparison.Ordinal);
        }

        Assert.Contains(problem.Value<string>("jsonPath")!, logged, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("application/json; charset=\"utf-8\"", HttpStatusCode.OK)]
    [InlineData("application/json; charset=\"utf-16\"", HttpStatusCode.UnsupportedMediaType)]
    [InlineData("application/json; charset=iso-8859-1", HttpStatusCode.UnsupportedMediaType)]
    public async Task Sign_QuotedCharset_Utf8SignedOtherCharsets415(string contentType, HttpStatusCode expected)
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign", Json(vector.Input, contentType));
        var json = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(expected, response.StatusCode);
        Assert.Equal(expected == HttpStatusCode.OK ? vector.SignatureHex : null, json.Value<string>("signature"));
    }

    [Theory]
    [InlineData("gzip", true)]
    [InlineData("gzip", false)]
    [InlineData("br", false)]
    public async Task Sign_ContentEncodingAttack_415NamingTheCodingNotSignedNot400(string coding, bool reallyCompressed)
    {
        // Arrange: a plain body labelled gzip was signed; a real gzip body was a 400 "not valid UTF-8".
        var vector = Vector.Load("one-widget");
        var body = vector.Input;
        if (reallyCompressed)
        {
            using var compressed = new MemoryStream();
            using (var gzip = new System.IO.Compression.GZipStream(compressed, System.IO.Compression.CompressionLevel.Fastest, leaveOpen: true))
            {
                gzip.Write(body);
            }

            body = compressed.ToArray();
        }

        var content = Json(body);
        content.Headers.ContentEncoding.Add(coding);

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign", content);
        var problem = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.UnsupportedMediaType, response.StatusCode);
        Assert.Equal(ProblemTypes.UnsupportedMediaType, problem.Value<string>("type"));
        Assert.Contains($"Content-Encoding '{coding}' is not supported", problem.Value<string>("detail"), StringComparison.Ordinal);
        Assert.False(response.Headers.Contains(SignatureHeaders.Signature));
    }

    private async Task<(HttpStatusCode Status, string Id)> SignAsync(byte[] body, string key)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Json(body) };
        request.Headers.Add(WebhookRequestHeaders.IdempotencyKey, key);
        using var response = await fixture.Client.SendAsync(request);
        var json = JObject.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(json["webhook"]?.Value<string>("id"), string.Join(",", response.Headers.GetValues("webhook-id")));
        return (response.StatusCode, json["webhook"]!.Value<string>("id")!);
    }

    private async Task<string> WaitForOutputAsync(int mark, string text)
    {
        var deadline = System.Diagnostics.Stopwatch.StartNew();
        while (deadline.Elapsed < TimeSpan.FromSeconds(15))
        {
            var since = fixture.Host.Output[mark..];
            if (since.Contains(text, StringComparison.Ordinal))
            {
                return since;
            }

            await Task.Delay(50);
        }

        throw new Xunit.Sdk.XunitException($"no '{text}' in the host's output:\n{fixture.Host.Output[mark..]}");
    }

    private static ByteArrayContent Json(byte[] body, string mediaType = "application/json")
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = MediaTypeHeaderValue.Parse(mediaType);
        return content;
    }
}
