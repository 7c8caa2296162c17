using System.Net;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// OpenTelemetry end to end through the published worker in the local host: what a signed request, a hostile
/// <c>traceparent</c> and queue messages leave at an OTLP receiver on loopback.
/// </summary>
public sealed class IsolatedTelemetryTests(IsolatedTelemetryFixture fixture) : IClassFixture<IsolatedTelemetryFixture>
{
    private static readonly byte[] OneWidget = File.ReadAllBytes(Path.Combine(Vector.Root, "one-widget", "input.json"));

    [Fact]
    public async Task Sign_FixedTraceparent_ExportsSpansAMetricAndLogsInThatTrace()
    {
        // Arrange
        const string TraceId = "0af7651916cd43dd8448eb211c80319c";
        const string CallerSpan = "b7ad6b7169203331";
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign?receiver=partner-a") { Content = new ByteArrayContent(OneWidget) };
        request.Content.Headers.ContentType = new("application/json");
        request.Headers.TryAddWithoutValidation("traceparent", $"00-{TraceId}-{CallerSpan}-01");

        // Act
        using var response = await fixture.Client.SendAsync(request);

        // Assert: the host's invocation span continues the caller's; ours are in the same trace.
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var receiver = fixture.Receiver;
        await receiver.WaitForAsync(
            () => receiver.Spans.Any(s => s.TraceId == TraceId && s.Name == "widgetsigning.read") && receiver.Spans.Any(s => s.TraceId == TraceId && s.Name == "Invoke Sign") &&
                receiver.Spans.Any(s => s.TraceId == TraceId && s.Name == "function Sign"),
            "the host's, the worker's and our spans in the caller's trace");
        var spans = receiver.Spans.Where(s => s.TraceId == TraceId).ToList();
        var hostSpan = Assert.Single(spans, s => s.Name == "Invoke Sign");
        Assert.Equal(CallerSpan, hostSpan.ParentSpanId);
        var worker = Assert.Single(spans, s => s.Name == "function Sign");
        Assert.Equal(hostSpan.SpanId, worker.ParentSpanId);
        var sign = Assert.Single(spans, s => s.Name == "widgetsigning.sign");
        Assert.Equal(worker.SpanId, sign.ParentSpanId);
        await receiver.WaitForAsync(
            () => receiver.MetricPoints.Any(p => p.Name == "widgetsigning.signatures" && p.Attributes.GetValueOrDefault("widgetsigning.receiver") == "partner-a"),
            "a widgetsigning.signatures point for partner-a");
        await receiver.WaitForAsync(() => receiver.Logs.Any(l => l.TraceId == TraceId && l.Body.StartsWith("Audit", StringComparison.Ordinal)), "the audit record in the caller's trace");
        Assert.All(receiver.Logs.Where(l => l.TraceId == TraceId), l => Assert.Contains(l.SpanId, spans.Select(s => s.SpanId)));
    }

    [Theory]
    [InlineData("oversized")]
    [InlineData("malformed")]
    [InlineData("control-characters")]
    [InlineData("repeated")]
    public async Task Sign_HostileTraceparent_IsIgnoredAndNeverEchoed(string attack)
    {
        // Arrange: each names a trace id that must not be continued.
        const string HostileTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
        var valid = $"00-{HostileTrace}-00f067aa0ba902b7-01";
        var values = attack switch
        {
            "oversized" => [valid + "-" + new string('a', 8000)],
            "malformed" => [$"00-{HostileTrace.ToUpperInvariant()}-00f067aa0ba902b7-01"],
            "control-characters" => [$"00-{HostileTrace}-00f067aa0ba902b7-0\u0001"],
            _ => new[] { valid, valid },
        };
        var before = fixture.Receiver.Spans.Count(s => s.Name == "widgetsigning.sign");
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = new ByteArrayContent(OneWidget) };
        request.Content.Headers.ContentType = new("application/json");
        foreach (var value in values)
        {
            request.Headers.TryAddWithoutValidation("traceparent", value);
        }

        // Act
        using var response = await fixture.Client.SendAsync(request);
        var body = await response.Content.ReadAsStringAsync();

        // Assert: signed in a trace of its own; the header never comes back.
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.DoesNotContain(HostileTrace, body + response.Headers + response.Content.Headers, StringComparison.OrdinalIgnoreCase);
        var receiver = fixture.Receiver;
        await receiver.WaitForAsync(() => receiver.Spans.Count(s => s.Name == "widgetsigning.sign") > before, "this request's sign span");
        Assert.DoesNotContain(receiver.Spans, s => s.TraceId == HostileTrace || s.ParentSpanId == "00f067aa0ba902b7");
        Assert.DoesNotContain(HostileTrace, fixture.Host.Output, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task SignQueue_ClaimCheckWithTraceparent_LinksTheProducerAndTheOutputCarriesItsTrace()
    {
        // Arrange
        const string ProducerTrace = "5b8aa5a2d2c872e8321cf37308d69df2";
        var storage = fixture.Azurite.ConnectionString;
        var blob = $"telemetry-{Guid.NewGuid():N}.json";
        var claims = new BlobContainerClient(storage, "widget-claims");
        await claims.CreateIfNotExistsAsync();
        await claims.UploadBlobAsync(blob, new BinaryData(OneWidget));
        var options = new QueueClientOptions { MessageEncoding = QueueMessageEncoding.Base64 };
        var input = new QueueClient(storage, "widget-envelopes", options);
        var output = new QueueClient(storage, "widget-signatures", options);
        await input.CreateIfNotExistsAsync();
        await output.CreateIfNotExistsAsync();

        // Act
        var sent = await input.SendMessageAsync($"{{\"claimCheck\":{{\"blob\":\"{blob}\"}},\"traceparent\":\"00-{ProducerTrace}-051581bf3cb55c13-01\"}}");
        var forwarded = await ReceiveOutputAsync(output, sent.Value.MessageId, fixture.Host);

        // Assert: a trace of its own, linked to the producer's; the output message names it.
        var traceParent = (string?)forwarded["traceparent"];
        Assert.NotNull(traceParent);
        var runTrace = traceParent!.Split('-')[1];
        Assert.NotEqual(ProducerTrace, runTrace);
        var receiver = fixture.Receiver;
        await receiver.WaitForAsync(() => receiver.Spans.Any(s => s.TraceId == runTrace && s.Name == "widgetsigning.sign"), "the queue run's sign span");
        var sign = Assert.Single(receiver.Spans, s => s.TraceId == runTrace && s.Name == "widgetsigning.sign");
        Assert.Contains(ProducerTrace, sign.LinkedTraceIds);
        Assert.Contains(receiver.Spans, s => s.TraceId == runTrace && s.Name == "widgetsigning.blob.read");
        await receiver.WaitForAsync(
            () => receiver.MetricPoints.Any(p => p.Name == "widgetsigning.signatures" && p.Attributes.GetValueOrDefault("widgetsigning.source") == "queue") &&
                receiver.MetricPoints.Any(p => p.Name == "widgetsigning.queue.message_age") &&
                receiver.MetricPoints.Any(p => p.Name == "widgetsigning.queue.dequeue_count"),
            "the queue's signature, age and dequeue-count points");
    }

    [Fact]
    public async Task SignQueue_InvalidEnvelope_CountsAQueueRefusal()
    {
        // Arrange
        var storage = fixture.Azurite.ConnectionString;
        var input = new QueueClient(storage, "widget-envelopes", new QueueClientOptions { MessageEncoding = QueueMessageEncoding.Base64 });
        await input.CreateIfNotExistsAsync();

        // Act
        await input.SendMessageAsync("{\"widgets\": [{\"id\": 7}]}");

        // Assert
        var receiver = fixture.Receiver;
        await receiver.WaitForAsync(
            () => receiver.MetricPoints.Any(p => p.Name == "widgetsigning.refusals" &&
                p.Attributes.GetValueOrDefault("widgetsigning.source") == "queue" && p.Attributes.GetValueOrDefault("widgetsigning.problem_type") == "invalid-envelope"),
            "a queue refusal for an invalid envelope");
    }

    private static async Task<JObject> ReceiveOutputAsync(QueueClient output, string messageId, IsolatedAppHost host)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(60);
        while (DateTime.UtcNow < deadline)
        {
            foreach (var message in (await output.ReceiveMessagesAsync(32, TimeSpan.FromSeconds(5))).Value)
            {
                var json = JObject.Parse(message.Body.ToString());
                if ((string?)json["messageId"] == messageId)
                {
                    return json;
                }
            }

            await Task.Delay(200);
        }

        throw new Xunit.Sdk.XunitException($"No output message for {messageId}:\n{host.Output[^Math.Min(host.Output.Length, 6000)..]}");
    }
}
