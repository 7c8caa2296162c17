using System.Net;
using System.Net.Http.Headers;
using FunctionApp.Tests.Infrastructure;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Issue 29's findings as a client sees them, against the published isolated app in tools/WorkerHost over sockets:
/// an <c>Idempotency-Key</c> bound to the content, echoed text escaped, the quoted charset, <c>Content-Encoding</c>.
/// </summary>
public sealed class IsolatedHardeningTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    [Fact]
    public async Task Sign_IdempotencyKeyReusedWithDifferentContentAttack_DifferentWebhookIdsAndARetryKeepsItsId()
    {
        // Arrange: finding 1: one key, two different envelopes, then a byte-identical retry of the first.
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

    private async Task<(HttpStatusCode Status, string Id)> SignAsync(byte[] body, string key)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Json(body) };
        request.Headers.Add(WebhookRequestHeaders.IdempotencyKey, key);
        using var response = await fixture.Client.SendAsync(request);
        var json = JObject.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(json["webhook"]?.Value<string>("id"), string.Join(",", response.Headers.GetValues("webhook-id")));
        return (response.StatusCode, json["webhook"]!.Value<string>("id")!);
    }

    private static ByteArrayContent Json(byte[] body, string mediaType = "application/json")
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = MediaTypeHeaderValue.Parse(mediaType);
        return content;
    }
}
