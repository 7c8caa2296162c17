using Microsoft.Azure.WebJobs.Host.Config;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>Registers the queue trigger with a WebJobs host (the in-process Functions host, or a test's JobHost).</summary>
public static class SigningQueueTriggerServiceCollectionExtensions
{
    /// <summary>
    /// Adds the trigger extension and its options, bound from host.json <c>extensions.queues</c> (the host's
    /// <c>AzureFunctionsJobHost:extensions:queues</c> section). Needs <c>AddWidgetQueueSigning</c>.
    /// </summary>
    public static IServiceCollection AddSigningQueueTrigger(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.AddOptions<SigningQueueTriggerOptions>()
            .Configure<IConfiguration>((options, configuration) =>
                configuration.GetWebJobsExtensionConfigurationSection(SigningQueueTriggerOptions.ExtensionName).Bind(options))
            .ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<SigningQueueTriggerOptions>, SigningQueueTriggerOptionsValidator>());
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IExtensionConfigProvider, SigningQueueExtensionConfigProvider>());
        return services;
    }
}
