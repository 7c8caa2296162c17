using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace FunctionApp.Queues;

/// <summary>Registers queue signing's host-independent services (no trigger: the storage extension is the host's part).</summary>
public static class QueueSigningServiceCollectionExtensions
{
    /// <summary>Adds <see cref="QueueOptions"/>, the blob store and the processor. Call after <c>AddWidgetSigning</c>.</summary>
    public static IServiceCollection AddWidgetQueueSigning(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);

        services.AddOptions<QueueOptions>().Bind(configuration.GetSection(QueueOptions.SectionName)).ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<QueueOptions>, QueueOptionsValidator>());
        services.TryAddSingleton<QueueBlobStore>();
        services.TryAddSingleton<QueueSigningProcessor>();
        return services;
    }
}
