using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

using WidgetSigning.Storage;

namespace WidgetSigning.Queues;

/// <summary>Registers queue signing's host-independent services (no trigger: that is the host's part).</summary>
public static class QueueSigningServiceCollectionExtensions
{
    /// <summary>
    /// Adds <see cref="QueueOptions"/> and <see cref="QueueNames"/> (validated at start), the blob store and the
    /// processor and the <see cref="QueueSigningHandler"/> each host's queue function calls. Call after <c>AddWidgetSigning</c>.
    /// </summary>
    public static IServiceCollection AddWidgetQueueSigning(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);

        services.AddOptions<QueueOptions>()
            .Bind(configuration.GetSection(QueueOptions.SectionName))
            .ValidateDataAnnotations()
            .ValidateOnStart();

        // Flat settings: bound from the root, which reads only these six keys.
        var names = services.AddOptions<QueueNames>()
            .Bind(configuration)
            .ValidateDataAnnotations()
            // Hand-written: a rule across three settings, which attributes on one property cannot express.
            .Validate(
                options => AreDistinct(options.WidgetInputQueue, options.WidgetOutputQueue, options.WidgetRejectedQueue, options.PoisonQueue),
                $"{nameof(QueueNames.WidgetInputQueue)}, {nameof(QueueNames.WidgetOutputQueue)} and {nameof(QueueNames.WidgetRejectedQueue)} (and the input's -poison queue) must be four different queues.");
        foreach (var (obsolete, replacement) in QueueNames.ObsoleteSettings)
        {
            // A renamed setting left behind would otherwise be ignored silently and the default used instead.
            names.Validate(
                _ => configuration[obsolete] is null,
                $"{obsolete} is no longer read: set {replacement} instead (queue and container names are flat app settings, which the platform resolves for triggers).");
        }

        names.ValidateOnStart();
        services.TryAddSingleton(provider => new WidgetStorageClientFactory(provider.GetRequiredService<IConfiguration>()));
        services.TryAddSingleton<WidgetStorageClients>();
        services.TryAddSingleton<QueueBlobStore>();
        services.TryAddSingleton<QueueSigningProcessor>();
        Audit.AuditServiceCollectionExtensions.AddWidgetAudit(services, configuration);

        // Built here rather than by reflection: its constructor is internal, so the hosts see only HandleAsync.
        services.TryAddSingleton(sp => new QueueSigningHandler(
            sp.GetRequiredService<QueueSigningProcessor>(),
            sp.GetRequiredService<Audit.AuditTrail>(),
            sp.GetRequiredService<ILogger<QueueSigningHandler>>(),
            sp.GetRequiredService<IOptions<QueueOptions>>(),
            sp.GetRequiredService<Telemetry.SigningMetrics>(),
            sp.GetRequiredService<TimeProvider>()));
        return services;
    }

    private static bool AreDistinct(params string[] queues) => queues.Distinct(StringComparer.Ordinal).Count() == queues.Length;
}
