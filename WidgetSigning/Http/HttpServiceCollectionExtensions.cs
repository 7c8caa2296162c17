using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace WidgetSigning.Http;

/// <summary>Registers what the HTTP adapters need on top of <c>AddWidgetSigning</c>.</summary>
public static class HttpServiceCollectionExtensions
{
    /// <summary>The setting <see cref="HttpOptions.MaxRequestBodyBytes"/> had before it moved to the <c>Http</c> section.</summary>
    public const string ObsoleteMaxRequestBodyBytesSetting = "Signing:MaxRequestBodyBytes";

    /// <summary>
    /// Adds <see cref="HttpOptions"/> (validated at start), the caller checks (<see cref="CallerServiceCollectionExtensions.AddWidgetCallers"/>),
    /// the audit log, the <see cref="HttpEnvelopeReader"/> and the handlers each
    /// host's HTTP functions call (<see cref="SignHandler"/>, <see cref="VerifyHandler"/>, <see cref="KeysHandler"/>, <see cref="PublicKeysHandler"/>).
    /// </summary>
    public static IServiceCollection AddWidgetHttp(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);

        // A setting under its old name would otherwise be ignored without a word, leaving the default in force.
        var obsoleteIsSet = configuration[ObsoleteMaxRequestBodyBytesSetting] is not null;
        services.AddOptions<HttpOptions>()
            .Bind(configuration.GetSection(HttpOptions.SectionName))
            .Validate(_ => !obsoleteIsSet, $"{ObsoleteMaxRequestBodyBytesSetting} is no longer read; set {HttpOptions.MaxRequestBodyBytesSetting} instead.")
            .ValidateDataAnnotations()
            .ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<HttpOptions>, HttpBodyCapacityValidator>());
        services.AddWidgetCallers(configuration);
        services.AddWidgetAudit(configuration);
        services.TryAddSingleton<HttpOperation>();
        services.TryAddSingleton<HttpEnvelopeReader>();

        // Built here rather than by reflection: their constructors are internal, so the hosts see only HandleAsync.
        services.TryAddSingleton(sp => new SignHandler(
            sp.GetRequiredService<HttpEnvelopeReader>(), sp.GetRequiredService<EnvelopeSigner>(), sp.GetRequiredService<IOptions<ReceiverOptions>>(), sp.GetRequiredService<HttpOperation>(), sp.GetRequiredService<ILogger<SignHandler>>()));
        services.TryAddSingleton(sp => new VerifyHandler(
            sp.GetRequiredService<HttpEnvelopeReader>(), sp.GetRequiredService<EnvelopeVerifier>(), sp.GetRequiredService<IOptions<ReceiverOptions>>(), sp.GetRequiredService<HttpOperation>(), sp.GetRequiredService<ILogger<VerifyHandler>>()));
        services.TryAddSingleton(sp => new KeysHandler(sp.GetRequiredService<IReceiverKeySource>(), sp.GetRequiredService<HttpOperation>(), sp.GetRequiredService<ILogger<KeysHandler>>()));
        services.TryAddSingleton(sp => new PublicKeysHandler(
            sp.GetRequiredService<IReceiverKeySource>(), sp.GetRequiredService<IOptions<KeyVaultOptions>>().Value.RefreshInterval, sp.GetService<TimeProvider>() ?? TimeProvider.System,
            sp.GetRequiredService<Telemetry.SigningMetrics>(), sp.GetRequiredService<ILogger<PublicKeysHandler>>()));
        return services;
    }
}
