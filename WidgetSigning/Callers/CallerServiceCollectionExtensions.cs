using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;
using WidgetSigning.Storage;

namespace WidgetSigning.Callers;

/// <summary>Registers the caller checks the HTTP handlers make: token, app role, grants.</summary>
public static class CallerServiceCollectionExtensions
{
    /// <summary>The storage connection the grants table is on (the data account's, as the queues').</summary>
    public const string ConnectionSetting = "WidgetStorage";

    /// <summary>
    /// Adds <see cref="AuthOptions"/> and <see cref="GrantOptions"/> (validated at start), <see cref="CallerAuthenticator"/>,
    /// <see cref="CallerGrants"/> over the grants table, and, unless a host registered one (the isolated app registers
    /// the Entra validator), a validator that refuses every token.
    /// </summary>
    public static IServiceCollection AddWidgetCallers(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        services.AddOptions<AuthOptions>().Bind(configuration.GetSection(AuthOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<AuthOptions>, AuthOptionsValidator>());
        services.AddOptions<GrantOptions>().Bind(configuration.GetSection(GrantOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.TryAddSingleton<IAzureEnvironment>(new AzureEnvironment(configuration));
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton(provider => new WidgetStorageClientFactory(provider.GetRequiredService<IConfiguration>()));
        services.TryAddSingleton<ITokenValidator>(provider =>
        {
            CallersLog.NoTokenValidator(provider.GetRequiredService<ILogger<CallerAuthenticator>>());
            return new UnavailableTokenValidator();
        });
        services.TryAddSingleton<IGrantStore>(provider => new TableGrantStore(
            provider.GetRequiredService<WidgetStorageClientFactory>().CreateTableServiceClient(ConnectionSetting)
                .GetTableClient(provider.GetRequiredService<IOptions<GrantOptions>>().Value.TableName),
            provider.GetRequiredService<ILogger<TableGrantStore>>()));
        services.TryAddSingleton<CallerGrants>();
        services.TryAddSingleton(provider =>
        {
            var options = provider.GetRequiredService<IOptions<AuthOptions>>();
            if (options.Value.Disabled)
            {
                CallersLog.AuthDisabled(provider.GetRequiredService<ILogger<CallerAuthenticator>>());
                return new CallerAuthenticator(new UnavailableTokenValidator(), options);
            }

            return new CallerAuthenticator(provider.GetRequiredService<ITokenValidator>(), options);
        });
        return services;
    }
}
