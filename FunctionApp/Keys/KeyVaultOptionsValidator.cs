using System.Text.RegularExpressions;
using Microsoft.Extensions.Options;

namespace FunctionApp.Keys;

/// <summary>Validates <see cref="KeyVaultOptions"/> once, naming each setting that is wrong.</summary>
internal sealed partial class KeyVaultOptionsValidator : IValidateOptions<KeyVaultOptions>
{
    private const string Section = KeyVaultOptions.SectionName + ":";
    private readonly IAzureEnvironment _environment;

    public KeyVaultOptionsValidator(IAzureEnvironment environment) => _environment = environment;

    public ValidateOptionsResult Validate(string? name, KeyVaultOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var errors = new List<string>();
        if (!options.IsConfigured)
        {
            if (_environment.IsRunningInAzure)
            {
                // The configuration key is for a developer's machine; in Azure it would be a secret in app settings.
                errors.Add($"{Section}{nameof(options.VaultUri)} is not set. In Azure the signing key must come from Key Vault; {LocalKeyOptions.LocalKeySetting} is for local development only.");
            }
            else if (!_environment.IsDevelopment)
            {
                // Fail closed: a container, AKS or a VM is not a developer's machine just because it is not App Service.
                errors.Add($"{Section}{nameof(options.VaultUri)} is not set, and the development key {LocalKeyOptions.LocalKeySetting} is accepted only when " +
                    $"{AzureEnvironment.EnvironmentSetting}={AzureEnvironment.Development} (which func start sets). Configure Key Vault.");
            }

            return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
        }

        if (!Uri.TryCreate(options.VaultUri, UriKind.Absolute, out var vault) || vault.Scheme != Uri.UriSchemeHttps)
        {
            errors.Add($"{Section}{nameof(options.VaultUri)} must be an absolute https URI such as https://my-vault.vault.azure.net/.");
        }

        if (string.IsNullOrWhiteSpace(options.SecretName) || !SecretNamePattern().IsMatch(options.SecretName))
        {
            errors.Add($"{Section}{nameof(options.SecretName)} must be set to a Key Vault secret name (1-127 letters, digits and dashes).");
        }

        if (!string.IsNullOrWhiteSpace(options.ManagedIdentityClientId) && !Guid.TryParse(options.ManagedIdentityClientId, out _))
        {
            errors.Add($"{Section}{nameof(options.ManagedIdentityClientId)} must be the client id (a GUID) of a user-assigned managed identity, or unset for the system-assigned one.");
        }

        Range(errors, nameof(options.RefreshInterval), options.RefreshInterval, TimeSpan.FromSeconds(1), TimeSpan.FromDays(1));
        Range(errors, nameof(options.MaxVersionAge), options.MaxVersionAge, TimeSpan.FromSeconds(1), TimeSpan.FromDays(3650));
        Range(errors, nameof(options.FailureRetryDelay), options.FailureRetryDelay, TimeSpan.FromMilliseconds(10), TimeSpan.FromHours(1));
        Range(errors, nameof(options.RetryDelay), options.RetryDelay, TimeSpan.Zero, TimeSpan.FromMinutes(1));
        Range(errors, nameof(options.MaxRetryDelay), options.MaxRetryDelay, TimeSpan.Zero, TimeSpan.FromMinutes(5));
        Range(errors, nameof(options.NetworkTimeout), options.NetworkTimeout, TimeSpan.FromMilliseconds(10), TimeSpan.FromMinutes(5));
        if (options.AcceptedPreviousVersions is < 0 or > 25)
        {
            errors.Add($"{Section}{nameof(options.AcceptedPreviousVersions)} must be between 0 and 25; it is {options.AcceptedPreviousVersions}.");
        }

        if (options.MaxRetries is < 0 or > 10)
        {
            errors.Add($"{Section}{nameof(options.MaxRetries)} must be between 0 and 10; it is {options.MaxRetries}.");
        }

        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }

    private static void Range(List<string> errors, string setting, TimeSpan value, TimeSpan min, TimeSpan max)
    {
        if (value < min || value > max)
        {
            errors.Add($"{Section}{setting} must be between {min:c} and {max:c}; it is {value:c}.");
        }
    }

    [GeneratedRegex("^[0-9A-Za-z-]{1,127}$", RegexOptions.CultureInvariant)]
    private static partial Regex SecretNamePattern();
}
