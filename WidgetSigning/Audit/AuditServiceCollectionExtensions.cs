using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;
using WidgetSigning.Storage;

namespace WidgetSigning.Audit;

/// <summary>Registers the audit trail: the log (event 7001) and the durable store every signature waits for.</summary>
internal static class AuditServiceCollectionExtensions
{
    /// <summary>The storage connection the trail's container lives on (the queues' and claim checks' account).</summary>
    public const string ConnectionSetting = "WidgetStorage";

    /// <summary>Adds <see cref="AuditOptions"/> (validated at start), <see cref="AuditLog"/> and <see cref="AuditTrail"/>. Idempotent.</summary>
    public static IServiceCollection AddWidgetAudit(this IServiceCollection services, IConfiguration configuration)
    {
        services.AddOptions<AuditOptions>().Bind(configuration.GetSection(AuditOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<AuditOptions>, AuditOptionsValidator>());
        services.TryAddSingleton<IAzureEnvironment>(new AzureEnvironment(configuration));
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton(_ => new WidgetStorageClientFactory(configuration));
        services.TryAddSingleton<AuditLog>();
        services.TryAddSingleton(provider =>
        {
            var options = provider.GetRequiredService<IOptions<AuditOptions>>().Value;
            var vault = provider.GetRequiredService<IOptions<KeyVaultOptions>>().Value.IsConfigured
                ? () => provider.GetRequiredService<SecretClient>()
                : (Func<SecretClient>?)null;
            return new AuditSigningKey(options, vault);
        });
        services.TryAddSingleton(provider =>
        {
            var options = provider.GetRequiredService<IOptions<AuditOptions>>();
            var storage = provider.GetRequiredService<WidgetStorageClientFactory>();
            return new AuditTrail(
                provider.GetRequiredService<AuditLog>(),
                options,
                () => new AuditBlobStore(storage.CreateBlobServiceClient(ConnectionSetting).GetBlobContainerClient(options.Value.Container)),
                provider.GetRequiredService<AuditSigningKey>(),
                provider.GetRequiredService<TimeProvider>(),
                provider.GetRequiredService<Telemetry.SigningMetrics>(),
                provider.GetRequiredService<ILogger<AuditTrail>>(),
                AuditProcess.Name(Environment.GetEnvironmentVariable(AzureEnvironment.InstanceIdVariable)));
        });
        return services;
    }
}
