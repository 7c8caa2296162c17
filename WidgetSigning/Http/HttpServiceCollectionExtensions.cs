using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;
using WidgetSigning.Callers;

namespace WidgetSigning.Http;

/// <summary>Registers what the HTTP adapters need on top of <c>AddWidgetSigning</c>.</summary>
public static class HttpServiceCollectionExtensions
{
    /// <summary>The setting <see cref="HttpOptions.MaxRequestBodyBytes"/> had before it moved to the <c>Http</c> section.</summary>
    public const string ObsoleteMaxRequestBodyBytesSetting = "Signing:MaxRequestBodyBytes";

    /// <summary>
    /// Adds <see cref="HttpOptions"/> (validated at start), the caller checks (<see cref="CallerServiceCollectionExtensions.AddWidgetCallers"/>),
    /// the audit log, the <see cref="HttpEnvelopeReader"/> and the handlers each
    /// host's HTTP functions call (<see cref="SignHandler"/>, <see cref="VerifyHandler"/>, <see cref="KeysHandler"/>).
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
        services.TryAddSingleton<AuditLog>();
        services.TryAddSingleton<HttpOperation>();
        services.TryAddSingleton<HttpEnvelopeReader>();
        services.TryAddSingleton<SignHandler>();
        services.TryAddSingleton<VerifyHandler>();
        services.TryAddSingleton<KeysHandler>();
        return services;
    }
}
