using Azure.Monitor.OpenTelemetry.Exporter;
using Microsoft.Extensions.Configuration;
using OpenTelemetry;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace WidgetSigning.Telemetry;

/// <summary>The service's OpenTelemetry registration, shared by the isolated app and the tests.</summary>
public static class TelemetryServiceCollectionExtensions
{
    /// <summary>The service name when <c>OTEL_SERVICE_NAME</c> is not set.</summary>
    public const string DefaultServiceName = "widget-signing";

    /// <summary>The platform's instance id, the worker's <c>service.instance.id</c> when set.</summary>
    public const string InstanceIdSetting = "WEBSITE_INSTANCE_ID";

    /// <summary>The setting that turns the Azure Monitor exporter on.</summary>
    public const string ConnectionStringSetting = "APPLICATIONINSIGHTS_CONNECTION_STRING";

    /// <summary>The standard setting that turns the OTLP exporter on.</summary>
    public const string OtlpEndpointSetting = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>
    /// Traces from the <c>WidgetSigning</c> source and the Azure SDKs' <c>Azure.*</c> sources, metrics from the
    /// <c>WidgetSigning</c> meter, and logs with their span's trace and span ids; sampled by <see cref="TracesSampler"/>;
    /// exported to Azure Monitor with the managed identity <see cref="AzureMonitorCredential"/> names when
    /// <c>APPLICATIONINSIGHTS_CONNECTION_STRING</c> is set, and over OTLP when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is
    /// (the standard <c>OTEL_*</c> settings apply). With neither, spans and measurements stay in the process.
    /// </summary>
    /// <exception cref="InvalidOperationException">A setting is invalid; the message names it.</exception>
    public static IOpenTelemetryBuilder AddWidgetSigningTelemetry(this IOpenTelemetryBuilder builder, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(configuration);

        // Azure.Core publishes its spans (Key Vault, Storage, Tables calls) on ActivitySources only behind this switch.
        AppContext.SetSwitch("Azure.Experimental.EnableActivitySource", true);

        var sampler = TracesSampler.From(configuration);
        var connectionString = configuration[ConnectionStringSetting];
        var credential = string.IsNullOrWhiteSpace(connectionString) ? null : AzureMonitorCredential.From(configuration[AzureMonitorCredential.Setting]);

        if (string.IsNullOrWhiteSpace(configuration["OTEL_SERVICE_NAME"]))
        {
            // The instance an operator can find again: the platform's instance id, else machine and process (the local
            // host names itself widget-signing-host, so the two never share a name).
            var instance = configuration[InstanceIdSetting] is { Length: > 0 } id ? id : $"{Environment.MachineName}-{Environment.ProcessId}";
            builder.ConfigureResource(resource => resource.AddService(DefaultServiceName, serviceInstanceId: instance));
        }

        builder.WithTracing(tracing =>
        {
            // First, so that no exporter sees an expected storage answer as an error.
            tracing.AddSource(WidgetSigningTelemetry.Name).AddSource("Azure.*").AddProcessor(new ExpectedAnswerProcessor());
            if (credential is not null)
            {
                tracing.AddAzureMonitorTraceExporter(options => Configure(options, connectionString!, credential));
            }

            // Last, so no exporter's default sampler (Azure Monitor's is rate-limited) replaces it.
            tracing.SetSampler(sampler);
        });
        builder.WithMetrics(metrics =>
        {
            metrics.AddMeter(WidgetSigningTelemetry.Name);
            if (credential is not null)
            {
                metrics.AddAzureMonitorMetricExporter(options => Configure(options, connectionString!, credential));
            }
        });
        builder.WithLogging(
            logging =>
            {
                if (credential is not null)
                {
                    logging.AddAzureMonitorLogExporter(options => Configure(options, connectionString!, credential));
                }
            },
            options => options.IncludeFormattedMessage = true);

        if (!string.IsNullOrWhiteSpace(configuration[OtlpEndpointSetting]))
        {
            // Reads OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL, _HEADERS and the per-signal variants; all three signals.
            builder.UseOtlpExporter();
        }

        return builder;
    }

    private static void Configure(AzureMonitorExporterOptions options, string connectionString, Azure.Core.TokenCredential credential)
    {
        options.ConnectionString = connectionString;
        options.Credential = credential;

        // Sampling is decided once, by the tracer provider's sampler; the exporter sends what it is given.
        options.SamplingRatio = 1.0F;
        options.TracesPerSecond = null;
    }
}
