using System.Collections.Concurrent;
using System.IO.Compression;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// An OTLP/HTTP (protobuf) receiver on loopback, real Kestrel: what the app exports arrives here as it would at a
/// collector. It decodes the few fields the tests read: spans (trace id, span id, parent, name, links), metric points
/// (name and string attributes) and log records (trace and span ids, body).
/// </summary>
public sealed class OtlpReceiver : IAsyncDisposable
{
    private readonly WebApplication _app;

    private OtlpReceiver(WebApplication app) => _app = app;

    public Uri Endpoint { get; private set; } = null!;

    public ConcurrentQueue<OtlpSpan> Spans { get; } = new();

    public ConcurrentQueue<OtlpMetricPoint> MetricPoints { get; } = new();

    public ConcurrentQueue<OtlpLog> Logs { get; } = new();

    /// <summary>Exports that could not be decoded (a test failure names them).</summary>
    public ConcurrentQueue<string> Errors { get; } = new();

    public static async Task<OtlpReceiver> StartAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0));
        var app = builder.Build();
        var receiver = new OtlpReceiver(app);
        app.MapPost("/v1/traces", context => receiver.ReceiveAsync(context, receiver.AddTraces));
        app.MapPost("/v1/metrics", context => receiver.ReceiveAsync(context, receiver.AddMetrics));
        app.MapPost("/v1/logs", context => receiver.ReceiveAsync(context, receiver.AddLogs));
        await app.StartAsync();
        receiver.Endpoint = new Uri(app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First());
        return receiver;
    }

    /// <summary>Waits until <paramref name="found"/> holds, or fails naming what arrived.</summary>
    public async Task WaitForAsync(Func<bool> found, string what, TimeSpan? timeout = null)
    {
        var deadline = DateTime.UtcNow + (timeout ?? TimeSpan.FromSeconds(30));
        while (!found())
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new Xunit.Sdk.XunitException(
                    $"Not received: {what}. Spans: {string.Join(", ", Spans.Select(s => $"{s.Name}@{s.TraceId}"))}; metrics: {string.Join(", ", MetricPoints.Select(p => p.Name).Distinct())}; logs: {Logs.Count}; undecodable: {string.Join("; ", Errors)}");
            }

            await Task.Delay(100);
        }
    }

    public async ValueTask DisposeAsync() => await _app.DisposeAsync();

    private async Task ReceiveAsync(HttpContext context, Action<ProtobufFields> add)
    {
        using var body = new MemoryStream();
        var input = context.Request.Headers.ContentEncoding == "gzip" ? new GZipStream(context.Request.Body, CompressionMode.Decompress) : context.Request.Body;
        await input.CopyToAsync(body);
        try
        {
            add(new ProtobufFields(body.ToArray()));
        }
        catch (Exception e) when (e is InvalidDataException or ArgumentOutOfRangeException or IndexOutOfRangeException)
        {
            Errors.Enqueue($"{context.Request.Path}: {e.GetType().Name}: {e.Message}");
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            return;
        }

        context.Response.ContentType = "application/x-protobuf";
        context.Response.StatusCode = StatusCodes.Status200OK;
    }

    // ExportTraceServiceRequest: resource_spans(1) → resource(1) → attributes(1); scope_spans(2) → spans(2): trace_id(1),
    // span_id(2), parent_span_id(4), name(5), kind(6), start(7) and end(8) in Unix ns, attributes(9), links(13) → trace_id(1),
    // span_id(2); status(15) → code(3).
    private void AddTraces(ProtobufFields request)
    {
        foreach (var resource in request.Messages(1))
        {
            var attributes = Attributes(resource.Messages(1).SelectMany(r => r.Messages(1)));
            var service = attributes.GetValueOrDefault("service.name", string.Empty);
            var instance = attributes.GetValueOrDefault("service.instance.id", string.Empty);
            foreach (var span in resource.Messages(2).SelectMany(s => s.Messages(2)))
            {
                Spans.Enqueue(new OtlpSpan(span.Hex(1), span.Hex(2), span.Hex(4), span.Text(5), span.Messages(13).Select(l => l.Hex(1)).ToList())
                {
                    Service = service,
                    ServiceInstance = instance,
                    Kind = (int)span.Number(6),
                    Start = span.Number(7),
                    End = span.Number(8),
                    Attributes = Attributes(span.Messages(9)),
                    LinkedSpanIds = span.Messages(13).Select(l => l.Hex(2)).ToList(),
                    StatusCode = (int)(span.Messages(15).FirstOrDefault()?.Number(3) ?? 0),
                });
            }
        }
    }

    // ExportMetricsServiceRequest: resource_metrics(1) → scope_metrics(2) → metrics(2): name(1); gauge(5)/sum(7)/histogram(9) → data_points(1).
    private void AddMetrics(ProtobufFields request)
    {
        foreach (var metric in request.Messages(1).SelectMany(r => r.Messages(2)).SelectMany(s => s.Messages(2)))
        {
            var name = metric.Text(1);
            // NumberDataPoint (gauge, sum) attributes(7); HistogramDataPoint attributes(9).
            foreach (var point in new[] { 5, 7 }.SelectMany(metric.Messages).SelectMany(data => data.Messages(1)))
            {
                MetricPoints.Enqueue(new OtlpMetricPoint(name, Attributes(point.Messages(7))));
            }

            foreach (var point in metric.Messages(9).SelectMany(data => data.Messages(1)))
            {
                MetricPoints.Enqueue(new OtlpMetricPoint(name, Attributes(point.Messages(9))));
            }
        }
    }

    // ExportLogsServiceRequest: resource_logs(1) → scope_logs(2) → log_records(2): body(5) (AnyValue string 1), trace_id(9), span_id(10).
    private void AddLogs(ProtobufFields request)
    {
        foreach (var log in request.Messages(1).SelectMany(r => r.Messages(2)).SelectMany(s => s.Messages(2)))
        {
            Logs.Enqueue(new OtlpLog(log.Hex(9), log.Hex(10), log.Messages(5).FirstOrDefault()?.Text(1) ?? string.Empty, Attributes(log.Messages(6))));
        }
    }

    // KeyValue: key(1), value(2) → AnyValue string_value(1), bool_value(2), int_value(3) (as decimal text).
    private static Dictionary<string, string> Attributes(IEnumerable<ProtobufFields> keyValues) =>
        keyValues.GroupBy(kv => kv.Text(1)).ToDictionary(g => g.Key, g => Value(g.First().Messages(2).FirstOrDefault()), StringComparer.Ordinal);

    private static string Value(ProtobufFields? any) => any is null ? string.Empty : any.Bytes(1).Length > 0 ? any.Text(1) :
        any.Number(3) is var n && n != 0 ? ((long)n).ToString(System.Globalization.CultureInfo.InvariantCulture) : string.Empty;
}

/// <summary>A span as exported.</summary>
public sealed record OtlpSpan(string TraceId, string SpanId, string ParentSpanId, string Name, IReadOnlyList<string> LinkedTraceIds)
{
    /// <summary>The exporting resource's <c>service.name</c>.</summary>
    public string Service { get; init; } = string.Empty;

    /// <summary>The exporting resource's <c>service.instance.id</c>.</summary>
    public string ServiceInstance { get; init; } = string.Empty;

    /// <summary>OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.</summary>
    public int Kind { get; init; }

    /// <summary>Start, in Unix nanoseconds.</summary>
    public ulong Start { get; init; }

    /// <summary>End, in Unix nanoseconds.</summary>
    public ulong End { get; init; }

    /// <summary>String and integer attributes (integers as decimal text).</summary>
    public IReadOnlyDictionary<string, string> Attributes { get; init; } = new Dictionary<string, string>();

    /// <summary>The span ids its links point to, in the order of <see cref="LinkedTraceIds"/>.</summary>
    public IReadOnlyList<string> LinkedSpanIds { get; init; } = [];

    /// <summary>OTLP's status code: 0 unset, 1 ok, 2 error.</summary>
    public int StatusCode { get; init; }
}

/// <summary>One metric data point as exported.</summary>
public sealed record OtlpMetricPoint(string Name, IReadOnlyDictionary<string, string> Attributes);

/// <summary>A log record as exported.</summary>
public sealed record OtlpLog(string TraceId, string SpanId, string Body, IReadOnlyDictionary<string, string> Attributes);
