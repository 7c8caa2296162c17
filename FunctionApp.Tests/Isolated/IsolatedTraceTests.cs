using System.Net;
using Azure.Storage.Queues;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Whose trace each span and log belongs to, at an OTLP receiver, from a worker that has signed nothing before: work
/// that serves several requests or none (the audit trail's writes and anchors, its stream and key set-up, the scaling
/// probe) is in no request's trace; a request's trace shows its own wait for the record.
/// </summary>
public sealed class IsolatedTraceTests(IsolatedTraceTests.FreshWorker fixture) : IClassFixture<IsolatedTraceTests.FreshWorker>
{
    private static readonly byte[] OneWidget = File.ReadAllBytes(Path.Combine(Vector.Root, "one-widget", "input.json"));

    [Fact]
    public async Task Sign_TwiceInAFreshWorker_EachTraceHoldsOnlyItsOwnSpansAndTheAppendsLinkToBoth()
    {
        // Arrange: two callers' traces; the first request starts the trail's writers, stream and key.
        (string Trace, string Parent)[] callers = [("1c1ec0de0000000000000000000000a1", "00000000000000a1"), ("1c1ec0de0000000000000000000000b2", "00000000000000b2")];
        var receiver = fixture.Receiver;

        // Act
        foreach (var (trace, parent) in callers)
        {
            using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign?receiver=partner-a") { Content = new ByteArrayContent(OneWidget) };
            request.Content.Headers.ContentType = new("application/json");
            request.Headers.TryAddWithoutValidation("traceparent", $"00-{trace}-{parent}-01");
            using var response = await fixture.Client.SendAsync(request);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        // An anchor (5 s after the last write here) is the last background work these two requests cause.
        await receiver.WaitForAsync(
            () => callers.All(c => receiver.Spans.Any(s => s.Name == "widgetsigning.audit.append" && s.LinkedTraceIds.Contains(c.Trace))) &&
                receiver.Spans.Any(s => s.Name == "widgetsigning.audit.anchor") && callers.All(c => receiver.Spans.Any(s => s.TraceId == c.Trace && s.Name == "Invoke Sign")),
            "both requests' host spans, the appends linking to them and an anchor");
        await Task.Delay(1000);

        // Assert: each trace is one tree under its caller that ended when its answer did.
        var spans = receiver.Spans.ToList();
        foreach (var (trace, parent) in callers)
        {
            var own = spans.Where(s => s.TraceId == trace).ToList();
            var invoke = Assert.Single(own, s => s.Name == "Invoke Sign");
            Assert.Equal(parent, invoke.ParentSpanId);
            var ids = own.Select(s => s.SpanId).ToHashSet();
            Assert.All(own, s => Assert.True(s == invoke || ids.Contains(s.ParentSpanId), $"{s.Name} is outside the request's tree"));
            Assert.All(own, s => Assert.True(s.End <= invoke.End, $"{s.Name} ended {(s.End - invoke.End) / 1e6:F1} ms after the request was answered: {Names(own)}"));
            Assert.DoesNotContain(own, s => s.Name is "widgetsigning.audit.append" or "widgetsigning.audit.anchor");

            var sign = Assert.Single(own, s => s.Name == "widgetsigning.sign");
            var wait = Assert.Single(own, s => s.Name == "widgetsigning.audit.wait");
            Assert.Equal(sign.SpanId, wait.ParentSpanId);
            Assert.StartsWith("streams/", wait.Attributes.GetValueOrDefault("widgetsigning.audit.stream"), StringComparison.Ordinal);
            Assert.True(int.Parse(wait.Attributes.GetValueOrDefault("widgetsigning.audit.records", "0"), System.Globalization.CultureInfo.InvariantCulture) >= 1, "the wait names its group's size");

            // The append that made this record durable links to this wait span.
            var append = Assert.Single(spans, s => s.Name == "widgetsigning.audit.append" && s.LinkedSpanIds.Contains(wait.SpanId));
            Assert.Equal(string.Empty, append.ParentSpanId);
            Assert.DoesNotContain(append.TraceId, callers.Select(c => c.Trace));
            Assert.Equal(wait.Attributes["widgetsigning.audit.stream"], append.Attributes.GetValueOrDefault("widgetsigning.audit.stream"));

            // Logs of the trail's set-up and anchors are not filed under a caller.
            Assert.DoesNotContain(receiver.Logs, l => l.TraceId == trace && (l.Body.StartsWith("Audit stream", StringComparison.Ordinal) ||
                l.Body.StartsWith("Audit trail key", StringComparison.Ordinal) || l.Body.StartsWith("Audit anchor", StringComparison.Ordinal) ||
                l.Body.StartsWith("Two cores", StringComparison.Ordinal)));
        }

        var anchor = spans.First(s => s.Name == "widgetsigning.audit.anchor");
        Assert.Equal(string.Empty, anchor.ParentSpanId);
    }

    [Fact]
    public async Task Sign_StorageAnswersTheCodeExpects_NoSpanIsAnErrorAndAMissingClaimBlobStillIs()
    {
        // Arrange: a fresh worker's first signatures meet a missing audit container (404, then created) and a key blob
        // another writer already wrote (409); a claim check naming no blob meets a 404 nothing expects.
        var receiver = fixture.Receiver;
        var options = new QueueClientOptions { MessageEncoding = QueueMessageEncoding.Base64 };
        var input = new QueueClient(fixture.Azurite.ConnectionString, "widget-envelopes", options);
        await input.CreateIfNotExistsAsync();
        var missing = $"missing-{Guid.NewGuid():N}.json";

        // Act
        for (var i = 0; i < 3; i++)
        {
            using var response = await fixture.Client.PostAsync("/api/sign?receiver=partner-a", new ByteArrayContent(OneWidget) { Headers = { ContentType = new("application/json") } });
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        await input.SendMessageAsync($"{{\"claimCheck\":{{\"blob\":\"{missing}\"}}}}");

        // Assert
        await receiver.WaitForAsync(
            () => receiver.Spans.Any(s => s.Attributes.GetValueOrDefault("http.response.status_code") == "404" && s.Attributes.GetValueOrDefault("url.full", string.Empty).Contains(missing, StringComparison.Ordinal)),
            "the claim check's 404");
        await Task.Delay(1000);
        var spans = receiver.Spans.ToList();
        var expected = spans.Where(s => s.Attributes.GetValueOrDefault("http.response.status_code") is "404" or "409" && !s.Attributes.GetValueOrDefault("url.full", string.Empty).Contains(missing, StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(expected);
        var errors = spans.Where(s => s.StatusCode == 2 && !IsTheClaimCheck(s, spans, missing)).ToList();
        Assert.True(errors.Count == 0, "error spans: " + string.Join("; ", errors.Select(e => $"{e.Name} {string.Join(",", e.Attributes.Select(a => a.Key + "=" + a.Value))}")));
        var claimCheck = spans.Where(s => IsTheClaimCheck(s, spans, missing)).ToList();
        Assert.Contains(claimCheck, s => s.StatusCode == 2 && s.Service.Length > 0 && s.Name != "widgetsigning.sign" && s.Attributes.GetValueOrDefault("http.response.status_code") == "404");
    }

    [Fact]
    public async Task Sign_WithoutTraceparent_TheHostsInvocationSpanIsTheRootOfANewTrace()
    {
        // Arrange: as the Functions host's ASP.NET Core server span (OpenTelemetryConfigurationExtensions,
        // AddAspNetCoreInstrumentation; GrpcWorkerChannel tags it faas.name and faas.trigger), with or without a traceparent.
        var receiver = fixture.Receiver;
        var before = receiver.Spans.Select(s => s.TraceId).ToHashSet();

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign?receiver=partner-a", new ByteArrayContent(OneWidget) { Headers = { ContentType = new("application/json") } });

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await receiver.WaitForAsync(() => receiver.Spans.Any(s => s.Name == "widgetsigning.sign" && !before.Contains(s.TraceId)), "this request's sign span");
        var trace = receiver.Spans.First(s => s.Name == "widgetsigning.sign" && !before.Contains(s.TraceId)).TraceId;
        await receiver.WaitForAsync(() => receiver.Spans.Any(s => s.TraceId == trace && s.Name == "Invoke Sign"), "the host's span in the same trace");
        var spans = receiver.Spans.Where(s => s.TraceId == trace).ToList();
        var host = Assert.Single(spans, s => s.Name == "Invoke Sign");
        Assert.Equal(string.Empty, host.ParentSpanId);
        Assert.Equal(2, host.Kind);
        Assert.Equal("Sign", host.Attributes.GetValueOrDefault("faas.name"));
        Assert.Equal("http", host.Attributes.GetValueOrDefault("faas.trigger"));
        Assert.Equal(host.SpanId, Assert.Single(spans, s => s.Name == "function Sign").ParentSpanId);
    }

    [Fact]
    public async Task Telemetry_HostAndWorker_AreTwoResourcesNamedApartWithReadableInstances()
    {
        // Arrange
        var receiver = fixture.Receiver;

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign?receiver=partner-a", new ByteArrayContent(OneWidget) { Headers = { ContentType = new("application/json") } });

        // Assert: the host's spans under widget-signing-host, the worker's under widget-signing; each instance is the
        // machine and process an operator can find (the local platform sets no WEBSITE_INSTANCE_ID).
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await receiver.WaitForAsync(() => receiver.Spans.Any(s => s.Name == "Invoke Sign") && receiver.Spans.Any(s => s.Name == "function Sign"), "the host's and the worker's spans");
        var host = receiver.Spans.First(s => s.Name == "Invoke Sign");
        var worker = receiver.Spans.First(s => s.Name == "function Sign");
        Assert.Equal(("widget-signing-host", "widget-signing"), (host.Service, worker.Service));
        Assert.Matches($"^{System.Text.RegularExpressions.Regex.Escape(Environment.MachineName)}-[0-9]+$", host.ServiceInstance);
        Assert.Matches($"^{System.Text.RegularExpressions.Regex.Escape(Environment.MachineName)}-[0-9]+$", worker.ServiceInstance);
        Assert.NotEqual(host.ServiceInstance, worker.ServiceInstance);
    }

    // A span of the claim check's trace: its own 404 is the one real failure here.
    private static bool IsTheClaimCheck(OtlpSpan span, List<OtlpSpan> spans, string missing) =>
        spans.Any(s => s.TraceId == span.TraceId && s.Attributes.GetValueOrDefault("url.full", string.Empty).Contains(missing, StringComparison.Ordinal));

    private static string Names(IEnumerable<OtlpSpan> spans) => string.Join(", ", spans.Select(s => s.Name));

    /// <summary>A worker of its own (no other test has signed through it), anchoring every 5 s.</summary>
    public sealed class FreshWorker : IsolatedTelemetryFixture
    {
        protected override IReadOnlyDictionary<string, string> Overrides { get; } = new Dictionary<string, string> { ["Audit:AnchorInterval"] = "00:00:05" };
    }
}
