using Azure.Core;
using Azure.Identity;
using Azure.Security.KeyVault.Secrets;

namespace WidgetSigning.Keys;

/// <summary>Builds the one <see cref="SecretClient"/>: its credential, retries and timeouts.</summary>
internal static class KeyVaultClientFactory
{
    /// <summary>The Key Vault REST API version the client speaks (<see cref="SecretClientOptions.ServiceVersion.V7_2"/>); list links this service builds name it too.</summary>
    internal const string ApiVersion = "7.2";

    /// <summary>
    /// In Azure, a <see cref="ManagedIdentityCredential"/> (user-assigned when <c>KeyVault:ManagedIdentityClientId</c>
    /// is set, system-assigned otherwise): deterministic, no probing of other credential types. Locally, the
    /// developer's own chain (Visual Studio, Azure CLI, azd, PowerShell, environment) without the managed-identity
    /// probe, which only costs time off Azure.
    /// </summary>
    public static TokenCredential CreateCredential(KeyVaultOptions options, IAzureEnvironment environment)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(environment);
        if (environment.IsRunningInAzure)
        {
            var id = string.IsNullOrWhiteSpace(options.ManagedIdentityClientId)
                ? ManagedIdentityId.SystemAssigned
                : ManagedIdentityId.FromUserAssignedClientId(options.ManagedIdentityClientId);
            return new ManagedIdentityCredential(id);
        }

        return new DefaultAzureCredential(new DefaultAzureCredentialOptions
        {
            ExcludeManagedIdentityCredential = true,
            ExcludeWorkloadIdentityCredential = true,
        });
    }

    /// <summary>The client options: bounded retries and timeouts from <paramref name="options"/>, no content logging.</summary>
    public static SecretClientOptions CreateClientOptions(KeyVaultOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var clientOptions = new SecretClientOptions(SecretClientOptions.ServiceVersion.V7_2);
        clientOptions.Retry.Mode = RetryMode.Exponential;
        clientOptions.Retry.MaxRetries = options.MaxRetries;
        clientOptions.Retry.Delay = options.RetryDelay;
        clientOptions.Retry.MaxDelay = options.MaxRetryDelay;
        clientOptions.Retry.NetworkTimeout = options.NetworkTimeout;

        // Response bodies carry the secret value: never let the SDK's diagnostics log them.
        clientOptions.Diagnostics.IsLoggingContentEnabled = false;
        clientOptions.AddPolicy(new KeyVaultThrottlePolicy(), HttpPipelinePosition.PerRetry);
        return clientOptions;
    }

    /// <summary>Creates the client for the configured vault.</summary>
    public static SecretClient CreateClient(KeyVaultOptions options, TokenCredential credential, SecretClientOptions clientOptions)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(credential);
        ArgumentNullException.ThrowIfNull(clientOptions);
        if (!options.IsConfigured)
        {
            throw new InvalidOperationException($"{KeyVaultOptions.SectionName}:{nameof(options.VaultUri)} is not set.");
        }

        return new SecretClient(new Uri(options.VaultUri!, UriKind.Absolute), credential, clientOptions);
    }
}
