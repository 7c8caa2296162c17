using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;

namespace WidgetSigning.Tests.Keys;

/// <summary>The <c>KeyVault</c> settings are validated as the app registers them, and each error names its setting.</summary>
public sealed class KeyVaultOptionsTests
{
    private const string Vault = "https://my-vault.vault.azure.net/";

    public static TheoryData<string, string> BadSettings => new()
    {
        { "VaultUri", "http://my-vault.vault.azure.net/" },
        { "VaultUri", "my-vault" },
        { "SecretName", "" },
        { "SecretName", "has spaces" },
        { "SecretName", new string('a', 128) },
        { "ManagedIdentityClientId", "not-a-guid" },
        { "RefreshInterval", "00:00:00" },
        { "RefreshInterval", "1.00:00:01" },
        { "MaxVersionAge", "00:00:00" },
        { "MaxCachedKeyAge", "00:00:00" },
        { "MaxCachedKeyAge", "7.00:00:01" },
        { "MaxVersionAge", "3650.00:00:01" },
        { "AcceptedPreviousVersions", "-1" },
        { "AcceptedPreviousVersions", "26" },
        { "MaxRetries", "-1" },
        { "MaxRetries", "11" },
        { "RetryDelay", "00:01:00.001" },
        { "MaxRetryDelay", "00:05:00.001" },
        { "NetworkTimeout", "00:00:00" },
        { "NetworkTimeout", "00:05:00.001" },
        { "FailureRetryDelay", "00:00:00" },
        { "FailureRetryDelay", "01:00:00.001" },
    };

    public static TheoryData<string, string> BoundarySettings => new()
    {
        { "RefreshInterval", "00:00:01" },
        { "RefreshInterval", "1.00:00:00" },
        { "MaxVersionAge", "3650.00:00:00" },
        { "MaxCachedKeyAge", "7.00:00:00" },
        { "AcceptedPreviousVersions", "0" },
        { "AcceptedPreviousVersions", "25" },
        { "MaxRetries", "0" },
        { "RetryDelay", "00:00:00" },
        { "NetworkTimeout", "00:00:00.010" },
        { "FailureRetryDelay", "00:00:00.010" },
        { "ManagedIdentityClientId", "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b" },
    };

    [Fact]
    public void Options_NoVaultOnDeveloperMachine_Succeed()
    {
        var options = Resolve(new FixedAzureEnvironment(false), []);

        Assert.False(options.IsConfigured);
    }

    [Fact]
    public void Options_NoVaultInAzure_FailNamingVaultUri()
    {
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new FixedAzureEnvironment(true), []));

        Assert.Contains("KeyVault:VaultUri is not set. In Azure", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Options_NoVaultOutsideDevelopment_FailNamingVaultUriAndTheEnvironment()
    {
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new FixedAzureEnvironment(false, isDevelopment: false), []));

        Assert.Contains("KeyVault:VaultUri is not set, and the development key", error.Message, StringComparison.Ordinal);
        Assert.Contains("AZURE_FUNCTIONS_ENVIRONMENT=Development", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Options_Defaults_Succeed()
    {
        var options = Resolve(new FixedAzureEnvironment(true), Vaulted([]));

        Assert.Equal(TimeSpan.FromMinutes(15), options.RefreshInterval);
        Assert.Equal(2, options.AcceptedPreviousVersions);
    }

    [Theory]
    [MemberData(nameof(BoundarySettings))]
    public void Options_SettingAtItsBound_Succeeds(string setting, string value)
    {
        // A refresh interval of a day needs a cached key that may sign that long (the cross-setting rule below).
        var settings = Vaulted(new() { ["KeyVault:" + setting] = value });
        if (setting == "RefreshInterval")
        {
            settings["KeyVault:MaxCachedKeyAge"] = value;
        }

        var options = Resolve(new FixedAzureEnvironment(true), settings);

        Assert.True(options.IsConfigured);
    }

    [Fact]
    public void Options_MaxCachedKeyAgeBelowRefreshInterval_FailNamingBoth()
    {
        var settings = Vaulted(new() { ["KeyVault:RefreshInterval"] = "00:10:00", ["KeyVault:MaxCachedKeyAge"] = "00:09:59" });

        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new FixedAzureEnvironment(true), settings));

        Assert.Contains("KeyVault:MaxCachedKeyAge must be at least KeyVault:RefreshInterval", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(BadSettings))]
    public void Options_BadSetting_FailNamingIt(string setting, string value)
    {
        // Arrange
        var settings = Vaulted(new() { ["KeyVault:" + setting] = value });

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new FixedAzureEnvironment(false), settings));

        // Assert
        Assert.Contains("KeyVault:" + setting + " must", error.Message, StringComparison.Ordinal);
    }

    private static Dictionary<string, string?> Vaulted(Dictionary<string, string?> settings)
    {
        settings.TryAdd("KeyVault:VaultUri", Vault);
        settings.TryAdd("KeyVault:SecretName", "widget-signing-key");
        return settings;
    }

    private static KeyVaultOptions Resolve(IAzureEnvironment environment, Dictionary<string, string?> settings)
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        using var provider = new ServiceCollection().AddSingleton(environment).AddSigningKeySource(configuration).BuildServiceProvider();
        return provider.GetRequiredService<IOptions<KeyVaultOptions>>().Value;
    }
}
