using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Keys;

/// <summary>
/// Registers the key source: Key Vault when <c>KeyVault:VaultUri</c> is set, otherwise <c>Signing:LocalKey</c>, which is
/// accepted only in development (<c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c>) and never in Azure.
/// </summary>
internal static class SigningKeySourceServiceCollectionExtensions
{
    /// <summary>
    /// Adds <see cref="KeyVaultOptions"/> (validated at start), the one <see cref="SecretClient"/> and the
    /// <see cref="IReceiverKeySource"/> chosen by configuration. Services registered before this call win
    /// (tests replace <see cref="IAzureEnvironment"/>, <see cref="TimeProvider"/> or <see cref="SecretClient"/>).
    /// </summary>
    public static IServiceCollection AddSigningKeySource(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);

        const string VaultUri = KeyVaultOptions.SectionName + ":" + nameof(KeyVaultOptions.VaultUri);
        services.AddOptions<KeyVaultOptions>()
            .Bind(configuration.GetSection(KeyVaultOptions.SectionName))
            .ValidateDataAnnotations()
            // Hand-written: rules that depend on the environment, on another setting, or on a URI's scheme, which attributes cannot express.
            // The configuration key is for a developer's machine; in Azure it would be a secret in app settings.
            .Validate<IAzureEnvironment>(
                (options, environment) => options.IsConfigured || !environment.IsRunningInAzure,
                $"{VaultUri} is not set. In Azure the signing key must come from Key Vault; {LocalKeyOptions.LocalKeySetting} is for local development only.")
            // Fail closed: a container, AKS or a VM is not a developer's machine just because it is not App Service.
            .Validate<IAzureEnvironment>(
                (options, environment) => options.IsConfigured || environment.IsRunningInAzure || environment.IsDevelopment,
                $"{VaultUri} is not set, and the development key {LocalKeyOptions.LocalKeySetting} is accepted only when " +
                $"{AzureEnvironment.EnvironmentSetting}={AzureEnvironment.Development} (which func start sets). Configure Key Vault.")
            .Validate(
                options => !options.IsConfigured || (Uri.TryCreate(options.VaultUri, UriKind.Absolute, out var vault) && vault.Scheme == Uri.UriSchemeHttps),
                $"{VaultUri} must be an absolute https URI such as https://my-vault.vault.azure.net/.")
            .Validate(
                options => !options.IsConfigured || !string.IsNullOrWhiteSpace(options.SecretName),
                $"{KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.SecretName)} {KeyVaultOptions.SecretNameRule}")
            .Validate(
                options => !options.IsConfigured || options.SecretName is null || !options.SecretName.StartsWith(options.ReceiverSecretPrefix, StringComparison.OrdinalIgnoreCase),
                $"{KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.SecretName)} must not start with {KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.ReceiverSecretPrefix)}: a receiver's id would then name the default receiver's secret.")
            .Validate(
                options => options.MaxCachedKeyAge >= options.RefreshInterval,
                $"{KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.MaxCachedKeyAge)} must be at least {KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.RefreshInterval)}, or the key would stop signing between two good refreshes.")
            .ValidateOnStart();
        services.AddOptions<ReceiverOptions>().Bind(configuration.GetSection(ReceiverOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.AddOptions<LocalKeyOptions>().Bind(configuration.GetSection(LocalKeyOptions.SectionName)).ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<LocalKeyOptions>, LocalKeyOptionsValidator>());
        services.TryAddSingleton<IAzureEnvironment>(new AzureEnvironment(configuration));
        services.TryAddSingleton(TimeProvider.System);
        services.AddMetrics();
        services.TryAddSingleton<Telemetry.SigningMetrics>();
        services.TryAddSingleton(provider =>
        {
            var options = provider.GetRequiredService<IOptions<KeyVaultOptions>>().Value;
            var credential = KeyVaultClientFactory.CreateCredential(options, provider.GetRequiredService<IAzureEnvironment>());
            return KeyVaultClientFactory.CreateClient(options, credential, KeyVaultClientFactory.CreateClientOptions(options));
        });
        services.TryAddSingleton<KeyVaultReceiverKeySource>();
        services.TryAddSingleton<ConfigurationReceiverKeySource>();

        // Decided on first resolution, after validation: without a vault anywhere but a developer's machine, reading the
        // options throws an OptionsValidationException naming KeyVault:VaultUri, so the local keys are never used there.
        services.TryAddSingleton<IReceiverKeySource>(provider =>
            provider.GetRequiredService<IOptions<KeyVaultOptions>>().Value.IsConfigured
                ? provider.GetRequiredService<KeyVaultReceiverKeySource>()
                : provider.GetRequiredService<ConfigurationReceiverKeySource>());
        return services;
    }
}
