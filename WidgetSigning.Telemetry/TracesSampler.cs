using System.Globalization;
using Microsoft.Extensions.Configuration;
using OpenTelemetry.Trace;

namespace WidgetSigning.Telemetry;

/// <summary>
/// The trace sampler from the standard <c>OTEL_TRACES_SAMPLER</c> and <c>OTEL_TRACES_SAMPLER_ARG</c> settings. Default:
/// <c>parentbased_always_on</c>, so every signature's trace is kept (a caller's decision to sample is honoured), never
/// the Azure Monitor exporter's own rate-limited sampler. Metrics are not sampled whatever this says.
/// </summary>
public static class TracesSampler
{
    /// <summary>The setting that names the sampler.</summary>
    public const string SamplerSetting = "OTEL_TRACES_SAMPLER";

    /// <summary>The setting that gives a ratio sampler its ratio (0 to 1).</summary>
    public const string ArgumentSetting = "OTEL_TRACES_SAMPLER_ARG";

    /// <summary>The sampler named by <paramref name="configuration"/>.</summary>
    /// <exception cref="InvalidOperationException">The setting names a sampler this service does not offer, or a ratio outside 0 to 1.</exception>
    public static Sampler From(IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var name = configuration[SamplerSetting];
        return string.IsNullOrWhiteSpace(name) ? new ParentBasedSampler(new AlwaysOnSampler()) : name.Trim() switch
        {
            "always_on" => new AlwaysOnSampler(),
            "always_off" => new AlwaysOffSampler(),
            "traceidratio" => new TraceIdRatioBasedSampler(Ratio(configuration)),
            "parentbased_always_on" => new ParentBasedSampler(new AlwaysOnSampler()),
            "parentbased_always_off" => new ParentBasedSampler(new AlwaysOffSampler()),
            "parentbased_traceidratio" => new ParentBasedSampler(new TraceIdRatioBasedSampler(Ratio(configuration))),
            _ => throw new InvalidOperationException(
                $"{SamplerSetting} must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio."),
        };
    }

    private static double Ratio(IConfiguration configuration)
    {
        var text = configuration[ArgumentSetting];
        if (string.IsNullOrWhiteSpace(text))
        {
            return 1.0;
        }

        return double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var ratio) && ratio is >= 0 and <= 1
            ? ratio
            : throw new InvalidOperationException($"{ArgumentSetting} must be a ratio between 0 and 1 for a ratio sampler.");
    }
}
