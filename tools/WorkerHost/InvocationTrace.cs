using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using OpenTelemetry;
using OpenTelemetry.Exporter;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace WorkerHost;

/// <summary>
/// The trace context each invocation carries to the worker, as the Functions host sends it
/// (azure-functions-host@89dc438d, src/WebJobs.Script/Description/Workers/WorkerFunctionInvoker.cs: <c>Traceparent =
/// Activity.Current?.Id</c>, <c>Tracestate = Activity.Current?.TraceStateString</c>; ScriptInvocationContextExtensions
/// .GetRpcTraceContext puts them in <c>RpcTraceContext</c>): the id of the host's invocation span, a child of the
/// caller's W3C <c>traceparent</c> when the request carries a valid one. A malformed, oversized or repeated header starts
/// a new trace; it is never echoed. With <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> set the host's spans are exported too.
/// The span is the host's request span in OpenTelemetry mode (src/WebJobs.Script/Diagnostics/OpenTelemetry/
/// OpenTelemetryConfigurationExtensions.cs: <c>AddAspNetCoreInstrumentation</c>, a server span for every request, the
/// caller's child or a new trace's root), tagged as src/WebJobs.Script.Grpc/Channel/GrpcWorkerChannel.cs tags
/// <c>Activity.Current</c> at each invocation: <c>faas.name</c> and <c>faas.trigger</c> (<c>http</c> for httpTrigger, else
/// the trigger type: OpenTelemetryConstants.ResolveTriggerType).
/// </summary>
internal static class InvocationTrace
{
    /// <summary>A version-00 <c>traceparent</c>'s length; other lengths are not read.</summary>
    public const int TraceParentLength = 55;

    /// <summary>The longest <c>tracestate</c> passed on (W3C: 32 list members; 512 characters is its suggested cut).</summary>
    public const int MaxTraceStateLength = 512;

    private static readonly ActivitySource Source = new("WorkerHost");

    /// <summary>Starts the listener (and, with an OTLP endpoint, the exporter); dispose at exit.</summary>
    public static IDisposable Start(IReadOnlyDictionary<string, string> settings)
    {
        var endpoint = Setting(settings, "OTEL_EXPORTER_OTLP_ENDPOINT");
        if (endpoint is null || !Uri.TryCreate(endpoint, UriKind.Absolute, out var uri))
        {
            // Spans are still made, as the host makes them, so each invocation carries a real trace context.
            var listener = new ActivityListener
            {
                ShouldListenTo = source => ReferenceEquals(source, Source),
                Sample = static (ref ActivityCreationOptions<ActivityContext> options) => SampleLikeParent(options.Parent),
            };
            ActivitySource.AddActivityListener(listener);
            return listener;
        }

        var grpc = string.Equals(Setting(settings, "OTEL_EXPORTER_OTLP_PROTOCOL"), "grpc", StringComparison.OrdinalIgnoreCase);
        return Sdk.CreateTracerProviderBuilder()
            // The worker's name and "-host": the two are told apart in a dashboard's resource list.
            .ConfigureResource(resource => resource.AddService(
                (Setting(settings, "OTEL_SERVICE_NAME") ?? "widget-signing") + "-host", serviceInstanceId: $"{Environment.MachineName}-{Environment.ProcessId}"))
            .AddSource(Source.Name)
            .SetSampler(new ParentBasedSampler(new AlwaysOnSampler()))
            .AddOtlpExporter(otlp =>
            {
                otlp.Protocol = grpc ? OtlpExportProtocol.Grpc : OtlpExportProtocol.HttpProtobuf;
                otlp.Endpoint = grpc ? uri : new Uri(uri, uri.AbsolutePath.TrimEnd('/') + "/v1/traces");
            })
            .Build();
    }

    /// <summary>The host's span for an HTTP invocation, continuing the request's <c>traceparent</c> if it is valid.</summary>
    public static Activity? StartHttp(HttpContext context, string functionName) =>
        Start(functionName, ActivityKind.Server, CallerContext(context.Request.Headers), "http");

    /// <summary>The host's span for a queue invocation: a new trace, as the queue carries no trace context.</summary>
    public static Activity? StartQueue(string functionName) => Start(functionName, ActivityKind.Consumer, parent: default, "queueTrigger");

    private static Activity? Start(string functionName, ActivityKind kind, ActivityContext parent, string trigger)
    {
        // Without a caller's context, a root: not a child of whatever is current (ASP.NET Core's own unrecorded request
        // activity, which the parent-based sampler would follow and drop).
        if (parent == default)
        {
            Activity.Current = null;
        }

        var span = Source.StartActivity($"Invoke {functionName}", kind, parent);
        span?.SetTag("faas.name", functionName);
        span?.SetTag("faas.trigger", trigger);
        return span;
    }

    /// <summary>What the invocation request carries: the host span's id and state (empty without one).</summary>
    public static Microsoft.Azure.Functions.Worker.Grpc.Messages.RpcTraceContext For(Activity? span) => new()
    {
        TraceParent = span?.Id ?? string.Empty,
        TraceState = span?.TraceStateString ?? string.Empty,
    };

    /// <summary>The caller's context: exactly one well-formed version-00 <c>traceparent</c>; else none (a new trace).</summary>
    internal static ActivityContext CallerContext(IHeaderDictionary headers)
    {
        var traceParent = headers["traceparent"];
        if (traceParent.Count != 1 || traceParent[0] is not { Length: TraceParentLength } value)
        {
            return default;
        }

        var traceState = headers["tracestate"];
        string? state = traceState.Count == 1 && traceState[0] is { Length: <= MaxTraceStateLength } s && s.All(c => c is >= ' ' and <= '~') ? s : null;
        return ActivityContext.TryParse(value, state, isRemote: true, out var context) ? context : default;
    }

    private static ActivitySamplingResult SampleLikeParent(ActivityContext parent) =>
        parent == default || parent.TraceFlags.HasFlag(ActivityTraceFlags.Recorded) ? ActivitySamplingResult.AllDataAndRecorded : ActivitySamplingResult.AllData;

    private static string? Setting(IReadOnlyDictionary<string, string> settings, string name) =>
        Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? value : settings.GetValueOrDefault(name) is { Length: > 0 } setting ? setting : null;
}
