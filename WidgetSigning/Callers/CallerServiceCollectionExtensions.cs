using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;
using WidgetSigning.Storage;

namespace WidgetSigning.Callers;

/// <summary>Registers the caller checks the HTTP handlers make: token, app role, grants.</summary>
internal static class CallerServiceCollectionExtensions
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
        // The isolated app registers its token validator before this; a host that validates tokens never reads a
        // platform principal (AuthOptionsValidator refuses Auth:PlatformAuthentication there).
        var hostValidatesTokens = services.Any(d => d.ServiceType == typeof(ITokenValidator));
        services.AddOptions<AuthOptions>().Bind(configuration.GetSection(AuthOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<AuthOptions>, AuthOptionsValidator>(
            provider => new AuthOptionsValidator(provider.GetRequiredService<IAzureEnvironment>(), hostValidatesTokens)));
        services.AddOptions<GrantOptions>().Bind(configuration.GetSection(GrantOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.TryAddSingleton<IAzureEnvironment>(new AzureEnvironment(configuration));
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton(_ => new WidgetStorageClientFactory(configuration));
        services.TryAddSingleton<ITokenValidator>(_ => new UnavailableTokenValidator());
        services.TryAddSingleton<IGrantStore>(provider => new TableGrantStore(
            provider.GetRequiredService<WidgetStorageClientFactory>().CreateTableServiceClient(ConnectionSetting)
                .GetTableClient(provider.GetRequiredService<IOptions<GrantOptions>>().Value.TableName),
            provider.GetRequiredService<ILogger<TableGrantStore>>()));
        // With Auth:Disabled the caller is the development one, whose grants are never read: no table is needed.
        services.TryAddSingleton(provider => new CallerGrants(
            provider.GetRequiredService<IOptions<AuthOptions>>().Value.Disabled ? new NoGrantStore() : provider.GetRequiredService<IGrantStore>(),
            provider.GetRequiredService<IOptions<GrantOptions>>(),
            provider.GetRequiredService<TimeProvider>()));
        services.TryAddSingleton(provider =>
        {
            var options = provider.GetRequiredService<IOptions<AuthOptions>>();
            if (options.Value.Disabled)
            {
                CallersLog.AuthDisabled(provider.GetRequiredService<ILogger<CallerAuthenticator>>());
                return new CallerAuthenticator(new UnavailableTokenValidator(), options);
            }

            var logger = provider.GetRequiredService<ILogger<CallerAuthenticator>>();
            var validator = provider.GetRequiredService<ITokenValidator>();
            var websiteAuthEnabled = configuration[PlatformPrincipal.EnabledVariable];
            var policy = PlatformPrincipalPolicy.Refuse;
            if (PlatformPrincipal.IsVouchedFor(options.Value, websiteAuthEnabled))
            {
                policy = PlatformPrincipalPolicy.Read;
                CallersLog.PlatformPrincipalTrusted(logger);
            }
            else if (options.Value.PlatformAuthentication)
            {
                CallersLog.PlatformAuthenticationOff(logger);
            }
            else if (validator is UnavailableTokenValidator)
            {
                CallersLog.NoTokenValidator(logger);
            }
            else if (PlatformPrincipal.IsPlatformAuthenticationOn(websiteAuthEnabled))
            {
                // The platform's gate in front of a host that validates tokens: its headers are its own, and not needed.
                policy = PlatformPrincipalPolicy.Ignore;
            }

            return new CallerAuthenticator(validator, options, policy);
        });
        return services;
    }

    private sealed class NoGrantStore : IGrantStore
    {
        public Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken) =>
            Task.FromResult<IReadOnlySet<string>>(new HashSet<string>());
    }
}
