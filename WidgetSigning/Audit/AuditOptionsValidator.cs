using Microsoft.Extensions.Options;
using WidgetSigning.Keys;

namespace WidgetSigning.Audit;

/// <summary>
/// The store may be off only on a developer's machine, as <c>Auth:Disabled</c>; a local key must be a usable Ed25519
/// key and is refused in Azure. Hand-written: the rules span the environment and a key decode. Never echoes the key.
/// </summary>
internal sealed class AuditOptionsValidator : IValidateOptions<AuditOptions>
{
    private readonly IAzureEnvironment _environment;

    public AuditOptionsValidator(IAzureEnvironment environment) => _environment = environment;

    public ValidateOptionsResult Validate(string? name, AuditOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (options.Disabled)
        {
            if (_environment.IsRunningInAzure)
            {
                failures.Add($"{AuditOptions.DisabledSetting} is set, but this is Azure: every signature must have its durable record. Remove {AuditOptions.DisabledSetting}.");
            }
            else if (!_environment.IsDevelopment)
            {
                failures.Add($"{AuditOptions.DisabledSetting} is accepted only when {AzureEnvironment.EnvironmentSetting}={AzureEnvironment.Development}.");
            }
        }

        if (options.StoreTimeout > options.WriteTimeout)
        {
            failures.Add($"{AuditOptions.StoreTimeoutSetting} ({options.StoreTimeout}) must not be longer than {AuditOptions.WriteTimeoutSetting} ({options.WriteTimeout}): a write that outlasts the caller's wait holds its writer for nothing.");
        }

        if (!string.IsNullOrWhiteSpace(options.LocalSigningKey))
        {
            if (_environment.IsRunningInAzure)
            {
                failures.Add($"{AuditOptions.LocalSigningKeySetting} is set, but this is Azure: the trail's key lives in Key Vault ({AuditOptions.SectionName}:{nameof(AuditOptions.SigningKeySecretName)}). Remove {AuditOptions.LocalSigningKeySetting}.");
            }
            else if (!AuditSigningKey.TryParse(options.LocalSigningKey, out _, out var reason))
            {
                failures.Add($"{AuditOptions.LocalSigningKeySetting} is not an Ed25519 key: {reason}.");
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
