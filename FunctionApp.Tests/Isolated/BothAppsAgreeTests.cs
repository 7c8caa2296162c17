using System.Net;
using System.Net.Http.Headers;
using FunctionApp.Tests.Infrastructure;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The two apps are one service: each vector (and each form of answer) sent to both, over sockets, gets the same status,
/// the same contract headers and the same body. Only what a clock or a random id decides may differ (webhook-timestamp
/// and what it signs; a generated webhook-id), so every request names its webhook-id with Idempotency-Key.
/// </summary>
public sealed class BothAppsAgreeTests(BothAppsFixture fixture) : IClassFixture<BothAppsFixture>
{
    private static readonly string[] ComparedHeaders = ["Content-Type", "X-Signature", "X-Signatures", "X-Signature-Key-Id", "X-Signature-Algorithm", "X-Signature-Receiver", "X-Signature-Receivers", "X-Signatures-For-partner-a", "X-Signatures-For-partner-b", "webhook-id", "Allow"];

    public static TheoryData<string, string> Requests()
    {
        var data = new TheoryData<string, string>();
        foreach (var vector in Vector.All())
        {
            data.Add(vector.Name, "/api/sign");
            data.Add(vector.Name, "/api/sign?output=canonical");
            data.Add(vector.Name, "/api/sign?forms=plain");
            data.Add(vector.Name, "/api/sign?forms=webhook&output=canonical");
            data.Add(vector.Name, "/api/verify");
            data.Add(vector.Name, "/api/sign?receiver=partner-a&receiver=partner-b");
            data.Add(vector.Name, "/api/sign?receiver=partner-b&receiver=partner-a&output=canonical");
            data.Add(vector.Name, "/api/verify?receiver=partner-a");
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Requests))]
    public async Task SameRequest_ToBothApps_SameStatusHeadersAndBody(string name, string path)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        var inProcess = await SendAsync(fixture.InProcess, path, vector);
        var isolated = await SendAsync(fixture.Isolated, path, vector);

        // Assert
        Assert.Equal(inProcess.Status, isolated.Status);
        Assert.Equal(inProcess.Headers, isolated.Headers);
        Assert.Equal(inProcess.Body, isolated.Body);
    }

    [Theory]
    [InlineData("GET", "/api/sign", "POST")]
    [InlineData("GET", "/api/verify", "POST")]
    [InlineData("DELETE", "/api/sign", "POST")]
    [InlineData("POST", "/api/keys", "GET")]
    public async Task WrongMethodAttack_ToBothAppsLocalHosts_405WithAllowNamingTheRoutesMethod(string method, string path, string allow)
    {
        // Arrange: issue 29, finding 6: GET /api/sign was a 404 in tools/LocalHost (the WebJobs router's method constraint).
        static HttpRequestMessage Request(string method, string path) => new(new HttpMethod(method), path)
        {
            Content = method is "GET" or "DELETE" ? null : new ByteArrayContent(Vector.Load("one-widget").Input) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };

        // Act
        using var inProcess = await fixture.InProcess.SendAsync(Request(method, path));
        using var isolated = await fixture.Isolated.SendAsync(Request(method, path));

        // Assert
        foreach (var response in new[] { inProcess, isolated })
        {
            Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
            Assert.Equal([allow], response.Content.Headers.Allow);
            Assert.False(response.Headers.Contains("X-Signature"));
        }
    }

    [Theory]
    [InlineData("GET", "/api/keys")]
    [InlineData("GET", "/api/keys?receiver=partner-b")]
    [InlineData("GET", "/api/keys?receiver=nobody")]
    [InlineData("POST", "/api/sign?receiver=nobody")]
    [InlineData("POST", "/api/sign?receiver=..%2Fx")]
    [InlineData("POST", "/api/sign?receiver=a&receiver=b&receiver=c&receiver=d&receiver=e&receiver=f&receiver=g&receiver=h&receiver=i")]
    [InlineData("POST", "/api/sign?output=nonsense")]
    [InlineData("POST", "/api/sign?forms=nonsense")]
    [InlineData("POST", "/api/sign?forms=plain&forms=webhook")]
    [InlineData("POST", "/api/verify")]
    public async Task EdgeRequest_ToBothApps_SameAnswer(string method, string path)
    {
        // Arrange: no body at all, or a bad query value.
        static HttpRequestMessage Request(string method, string path) => new(new HttpMethod(method), path)
        {
            Content = method == "GET" ? null : new ByteArrayContent(Vector.Load("one-widget").Input) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };

        // Act
        using var inProcess = await fixture.InProcess.SendAsync(Request(method, path));
        using var isolated = await fixture.Isolated.SendAsync(Request(method, path));

        // Assert
        Assert.Equal(inProcess.StatusCode, isolated.StatusCode);
        Assert.Equal(Normalize(await inProcess.Content.ReadAsStringAsync()), Normalize(await isolated.Content.ReadAsStringAsync()));
    }

    private static async Task<(int Status, string Headers, string Body)> SendAsync(HttpClient client, string path, Vector vector)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, path)
        {
            Content = new ByteArrayContent(vector.Input) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };
        request.Headers.Add("Idempotency-Key", "agree-" + vector.Name);
        if (path.StartsWith("/api/verify", StringComparison.Ordinal) && vector.SignatureHex is not null)
        {
            request.Headers.Add("X-Signature", vector.SignatureHex);
        }

        using var response = await client.SendAsync(request);
        var headers = string.Join("\n", ComparedHeaders.Select(h =>
            $"{h}: {(response.Headers.TryGetValues(h, out var v) || response.Content.Headers.TryGetValues(h, out v) ? string.Join(",", v) : "(none)")}"));
        return ((int)response.StatusCode, headers, Normalize(await response.Content.ReadAsStringAsync()));
    }

    /// <summary>
    /// A JSON body without what the clock or the connection decides (webhook.timestamp and webhook.signature; a problem's
    /// traceId, the server's per-request identifier); any other body as is.
    /// </summary>
    private static string Normalize(string body)
    {
        if (!body.StartsWith('{'))
        {
            return body;
        }

        var json = JObject.Parse(body);
        json.Remove("traceId");
        if (json["webhook"] is JObject webhook)
        {
            webhook.Remove("timestamp");
            webhook.Remove("signature");
        }

        foreach (var receiver in json["receivers"]?.Children<JObject>() ?? [])
        {
            receiver.Remove("webhookSignature");
        }

        return json.ToString(Newtonsoft.Json.Formatting.None);
    }
}
