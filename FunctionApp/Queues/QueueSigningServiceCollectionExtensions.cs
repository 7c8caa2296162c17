using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace FunctionApp.Queues;

/// <summary>Registers queue signing's host-independent services (no trigger: the storage extension is the host's part).</summary>
public static class QueueSigningServiceCollectionExtensions
{
    /// <summary>Adds <see cref="QueueOptions"/> (validated at start), the blob store and the processor. Call after <c>AddWidgetSigning</c>.</summary>
    public static IServiceCollection AddWidgetQueueSigning(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);

        services.AddOptions<QueueOptions>()
            .Bind(configuration.GetSection(QueueOptions.SectionName))
            .ValidateDataAnnotations()
            // Hand-written: a rule across three settings, which attributes on one property cannot express.
            .Validate(
                options => AreDistinct(options.Input, options.Output, options.Rejected, options.Input + "-poison"),
                $"{QueueOptions.SectionName}:{nameof(QueueOptions.Input)}, {nameof(QueueOptions.Output)} and {nameof(QueueOptions.Rejected)} (and the input's -poison queue) must be four different queues.")
            .ValidateOnStart();
        services.TryAddSingleton<QueueBlobStore>();
        services.TryAddSingleton<QueueSigningProcessor>();
        return services;
    }

    private static bool AreDistinct(params string[] queues) => queues.Distinct(StringComparer.Ordinal).Count() == queues.Length;
}
