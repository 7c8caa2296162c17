using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Tests.Telemetry;

/// <summary>
/// The core wired as the isolated app wires it (AddWidgetSigning, AddWidgetHttp, AddWidgetSigningTelemetry), with the
/// in-memory exporters attached: what a test does through the handlers is read back as the exporters see it.
/// </summary>
public sealed class TelemetryHarness : IDisposable
{
    // The known-answer vectors' key (../shared/vectors/key.b64).
    public const string VectorKey = "fcBwc7CmsvOwrzWPyQgBaPqJitcrfxEq7xVHYQj3WtY=";

    private readonly ServiceProvider _services;

    public TelemetryHarness(IReadOnlyDictionary<string, string?>? settings = null)
    {
        var values = new Dictionary<string, string?>
        {
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
            ["Auth:Disabled"] = "true",
            ["Audit:Disabled"] = "true",
            ["Signing:LocalKey"] = VectorKey,
            ["Signing:LocalKeys:partner-a"] = VectorKey,
        };
        foreach (var (key, value) in settings ?? new Dictionary<string, string?>())
        {
            values[key] = value;
        }

        Configuration = new ConfigurationBuilder().AddInMemoryCollection(values).Build();
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddMetrics();
        services.AddSingleton<IConfiguration>(Configuration);
        services.AddWidgetSigning(Configuration).AddWidgetHttp(Configuration);
        services.AddOpenTelemetry()
            .AddWidgetSigningTelemetry(Configuration)
            .WithTracing(tracing => tracing.AddSource(TestSource.Name).AddInMemoryExporter(Spans))
            .WithMetrics(metrics => metrics.AddInMemoryExporter(Metrics));
        _services = services.BuildServiceProvider();
        TracerProvider = _services.GetRequiredService<TracerProvider>();
        MeterProvider = _services.GetRequiredService<MeterProvider>();
    }

    /// <summary>The source a test's own root span comes from, so its spans are told apart by trace id.</summary>
    public static ActivitySource TestSource { get; } = new("WidgetSigning.Tests");

    public IConfiguration Configuration { get; }

    public List<Activity> Spans { get; } = [];

    public List<Metric> Metrics { get; } = [];

    public TracerProvider TracerProvider { get; }

    public MeterProvider MeterProvider { get; }

    public IServiceProvider Services => _services;

    public T Get<T>()
        where T : notnull => _services.GetRequiredService<T>();

    /// <summary>POSTs <paramref name="body"/> to the sign handler under a root span of the test's; returns the status and the trace id.</summary>
    public async Task<(int Status, ActivityTraceId TraceId)> SignAsync(byte[] body, string? query = null)
    {
        using var root = TestSource.StartActivity("test");
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Post;
        context.Request.Path = "/api/sign";
        context.Request.ContentType = "application/json";
        context.Request.QueryString = query is null ? QueryString.Empty : new QueryString(query);
        context.Request.Body = new MemoryStream(body, writable: false);
        context.Request.ContentLength = body.Length;
        context.Response.Body = new MemoryStream();
        context.RequestServices = _services;
        var result = await Get<SignHandler>().HandleAsync(context.Request);
        await result.ExecuteResultAsync(new Microsoft.AspNetCore.Mvc.ActionContext { HttpContext = context });
        (result as IDisposable)?.Dispose();
        return (context.Response.StatusCode, root!.TraceId);
    }

    /// <summary>Every exported point of <paramref name="name"/> whose tags include all of <paramref name="tags"/>: their sum (counters), last value (gauges) or count (histograms).</summary>
    public double Sum(string name, params (string Key, string Value)[] tags)
    {
        double total = 0;
        foreach (var (metric, point) in Points(name, tags))
        {
            total += metric.MetricType switch
            {
                MetricType.LongSum => point.GetSumLong(),
                MetricType.DoubleSum => point.GetSumDouble(),
                MetricType.Histogram => point.GetHistogramCount(),
                MetricType.LongGauge => point.GetGaugeLastValueLong(),
                MetricType.DoubleGauge => point.GetGaugeLastValueDouble(),
                _ => 0,
            };
        }

        return total;
    }

    /// <summary>The values recorded on histogram <paramref name="name"/> under <paramref name="tags"/>: how many, their sum, their least and greatest.</summary>
    public (long Count, double Sum, double Min, double Max) Recorded(string name, params (string Key, string Value)[] tags)
    {
        long count = 0;
        double sum = 0;
        var min = double.PositiveInfinity;
        var max = double.NegativeInfinity;
        foreach (var (metric, point) in Points(name, tags))
        {
            if (metric.MetricType != MetricType.Histogram)
            {
                throw new InvalidOperationException($"{name} is a {metric.MetricType}, not a histogram.");
            }

            count += point.GetHistogramCount();
            sum += point.GetHistogramSum();
            if (point.TryGetHistogramMinMaxValues(out var pointMin, out var pointMax))
            {
                min = Math.Min(min, pointMin);
                max = Math.Max(max, pointMax);
            }
        }

        return (count, sum, min, max);
    }

    private List<(Metric Metric, MetricPoint Point)> Points(string name, (string Key, string Value)[] tags)
    {
        MeterProvider.ForceFlush();
        var points = new List<(Metric, MetricPoint)>();
        // The exporter appends the same (cumulative) Metric at every export: each counts once, at its latest values.
        foreach (var metric in Metrics.Where(m => m.Name == name).Distinct())
        {
            foreach (ref readonly var point in metric.GetMetricPoints())
            {
                var pointTags = new Dictionary<string, object?>();
                foreach (var tag in point.Tags)
                {
                    pointTags[tag.Key] = tag.Value;
                }

                if (tags.All(t => pointTags.TryGetValue(t.Key, out var v) && (string?)v == t.Value))
                {
                    points.Add((metric, point));
                }
            }
        }

        return points;
    }

    public void Dispose() => _services.Dispose();
}
