using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The two apps are one service: each vector (and each form of answer) sent to both, over sockets, gets the answer its
/// expected.json and canonical.json call for, and the same status, contract headers and body (canonical bodies byte for
/// byte) from both. Only what a clock or a random id decides may differ (webhook-timestamp
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

        // Assert: each app gives the vector's own answer (so two apps broken alike cannot agree their way through), then
        // the same answer as the other, canonical bodies byte for byte.
        foreach (var answer in new[] { inProcess, isolated })
        {
            AssertAnswersTheVector(vector, path, answer);
        }

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
        // Arrange: GET /api/sign was a 404 in tools/LocalHost (the WebJobs router's method constraint).
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

    /// <summary>
    /// What the vector's expected.json says the answer is: a 400 for a rejected vector; otherwise a 200 whose canonical
    /// body is canonical.json byte for byte, whose hex signatures are the HMAC of canonical.json with each receiver's key
    /// (the default receiver's is expected.json's <c>signatureHex</c>), and whose every Standard Webhooks signature
    /// (headers and JSON) is the HMAC of <c>id.timestamp.canonical</c> with that receiver's key.
    /// </summary>
    private static void AssertAnswersTheVector(Vector vector, string path, Answer answer)
    {
        var context = $"{vector.Name} {path}: {answer.Status}\n{answer.Headers}\n{answer.Body}";
        if (vector.Reject)
        {
            Assert.True(answer.Status == 400, context);
            return;
        }

        Assert.True(answer.Status == 200, context);
        var canonical = vector.Canonical;
        var receivers = Receivers(path);
        if (path.StartsWith("/api/verify", StringComparison.Ordinal))
        {
            // The vector's signature is the default receiver's: valid for it, a mismatch for anyone else.
            var verdict = JObject.Parse(Encoding.UTF8.GetString(answer.Raw));
            Assert.Equal(receivers.Length == 0, (bool)verdict["valid"]!);
            return;
        }

        if (path.Contains("output=canonical", StringComparison.Ordinal))
        {
            Assert.Equal(canonical, answer.Raw);
        }

        var webhookForm = !path.Contains("forms=plain", StringComparison.Ordinal);
        var plainForm = !path.Contains("forms=webhook", StringComparison.Ordinal);
        if (receivers.Length == 0)
        {
            Assert.Equal(plainForm ? vector.SignatureHex : null, answer.Header("X-Signature"));
            AssertWebhookSignature(webhookForm, Vector.Key, answer.Header("webhook-signature"), answer.Header("webhook-id"), answer.Header("webhook-timestamp"), canonical, context);
        }
        else if (path.Contains("output=canonical", StringComparison.Ordinal))
        {
            foreach (var receiver in receivers)
            {
                var key = ReceiverKey(receiver);
                Assert.Equal(plainForm ? $"current:local:{Hex(key, canonical)}" : null, answer.Header($"X-Signatures-For-{receiver}"));
                AssertWebhookSignature(webhookForm, key, answer.Header($"Webhook-Signature-For-{receiver}"), answer.Header("webhook-id"), answer.Header("webhook-timestamp"), canonical, context);
            }
        }

        if (!path.Contains("output=canonical", StringComparison.Ordinal))
        {
            var json = JObject.Parse(Encoding.UTF8.GetString(answer.Raw));
            var webhook = json["webhook"];
            if (receivers.Length == 0)
            {
                Assert.Equal(plainForm ? vector.SignatureHex : null, (string?)json["signature"]);
                AssertWebhookSignature(webhookForm, Vector.Key, (string?)webhook?["signature"], (string?)webhook?["id"], (string?)webhook?["timestamp"], canonical, context);
            }
            else
            {
                var answered = json["receivers"]!.Children<JObject>().ToDictionary(r => (string)r["receiver"]!, StringComparer.Ordinal);
                Assert.Equal(receivers.Order(StringComparer.Ordinal), answered.Keys.Order(StringComparer.Ordinal));
                foreach (var receiver in receivers)
                {
                    var key = ReceiverKey(receiver);
                    Assert.Equal(plainForm ? Hex(key, canonical) : null, (string?)answered[receiver]["signature"]);
                    AssertWebhookSignature(webhookForm, key, (string?)answered[receiver]["webhookSignature"], (string?)webhook?["id"], (string?)webhook?["timestamp"], canonical, context);
                }
            }
        }
    }

    /// <summary>A Standard Webhooks <c>v1,</c> signature made here, with the key, over the id and timestamp the answer gave.</summary>
    private static void AssertWebhookSignature(bool expected, byte[] key, string? signature, string? id, string? timestamp, byte[] canonical, string context)
    {
        if (!expected)
        {
            Assert.True(signature is null, context);
            return;
        }

        Assert.True(signature is not null && id is not null && timestamp is not null, context);
        var signed = HMACSHA256.HashData(key, Encoding.UTF8.GetBytes($"{id}.{timestamp}.").Concat(canonical).ToArray());
        Assert.Equal("v1," + Convert.ToBase64String(signed), signature);
    }

    private static string[] Receivers(string path) =>
        [.. path.Split('?', '&').Where(p => p.StartsWith("receiver=", StringComparison.Ordinal)).Select(p => p["receiver=".Length..])];

    private static byte[] ReceiverKey(string receiver) => Convert.FromBase64String(IsolatedAppHost.Settings(storage: null)[$"Signing:LocalKeys:{receiver}"]);

    private static string Hex(byte[] key, byte[] canonical) => Convert.ToHexString(HMACSHA256.HashData(key, canonical)).ToLowerInvariant();

    private static async Task<Answer> SendAsync(HttpClient client, string path, Vector vector)
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
        var all = response.Headers.Concat(response.Content.Headers).ToDictionary(h => h.Key, h => string.Join(",", h.Value), StringComparer.OrdinalIgnoreCase);
        var headers = string.Join("\n", ComparedHeaders.Select(h => $"{h}: {all.GetValueOrDefault(h) ?? "(none)"}"));
        var raw = await response.Content.ReadAsByteArrayAsync();

        // A canonical body is compared as the bytes it is; a JSON answer without what the clock or the connection decides.
        var canonicalBody = response.IsSuccessStatusCode && path.Contains("output=canonical", StringComparison.Ordinal);
        return new((int)response.StatusCode, headers, canonicalBody ? Convert.ToHexString(raw) : Normalize(Encoding.UTF8.GetString(raw)), raw, all);
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

    /// <summary>
    /// One app's answer: the status, the compared headers as text, the body as compared (canonical bytes as hex, JSON
    /// normalized), the raw body and every header.
    /// </summary>
    private sealed record Answer(int Status, string Headers, string Body, byte[] Raw, Dictionary<string, string> AllHeaders)
    {
        public string? Header(string name) => AllHeaders.GetValueOrDefault(name);
    }
}
