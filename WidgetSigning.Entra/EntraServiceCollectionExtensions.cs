using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace WidgetSigning.Callers.Entra;

/// <summary>Registers the Entra token validator in place of the core's refuse-everything default.</summary>
public static class EntraServiceCollectionExtensions
{
    /// <summary>
    /// Makes <see cref="EntraTokenValidator"/> the <see cref="ITokenValidator"/>, before or after <c>AddWidgetHttp</c>,
    /// and fetches the issuer's keys as the host starts.
    /// </summary>
    public static IServiceCollection AddEntraTokenValidation(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.Replace(ServiceDescriptor.Singleton<ITokenValidator, EntraTokenValidator>());
        services.AddHostedService<IssuerKeysWarmUp>();
        return services;
    }
}
