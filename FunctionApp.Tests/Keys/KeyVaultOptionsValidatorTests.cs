using FunctionApp.Keys;
using FunctionApp.Tests.Infrastructure;

namespace FunctionApp.Tests.Keys;

public sealed class KeyVaultOptionsValidatorTests
{
    public static TheoryData<string, string> BadSettings => new()
    {
        { "VaultUri", "http://my-vault.vault.azure.net/" },
        { "VaultUri", "my-vault" },
        { "SecretName", "" },
        { "SecretName", "has spaces" },
        { "ManagedIdentityClientId", "not-a-guid" },
        { "RefreshInterval", "00:00:00" },
        { "MaxVersionAge", "00:00:00" },
        { "AcceptedPreviousVersions", "-1" },
        { "AcceptedPreviousVersions", "26" },
        { "MaxRetries", "11" },
        { "NetworkTimeout", "00:00:00" },
        { "FailureRetryDelay", "00:00:00" },
    };

    [Fact]
    public void Validate_NoVaultOnDeveloperMachine_Succeeds()
    {
        var result = new KeyVaultOptionsValidator(new FixedAzureEnvironment(false)).Validate(null, new KeyVaultOptions());

        Assert.True(result.Succeeded);
    }

    [Fact]
    public void Validate_NoVaultInAzure_FailsNamingVaultUri()
    {
        var result = new KeyVaultOptionsValidator(new FixedAzureEnvironment(true)).Validate(null, new KeyVaultOptions());

        Assert.True(result.Failed);
        Assert.Contains("KeyVault:VaultUri", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_Defaults_Succeed()
    {
        var options = new KeyVaultOptions { VaultUri = "https://my-vault.vault.azure.net/", SecretName = "widget-signing-key" };

        var result = new KeyVaultOptionsValidator(new FixedAzureEnvironment(true)).Validate(null, options);

        Assert.True(result.Succeeded, result.FailureMessage);
    }

    [Theory]
    [MemberData(nameof(BadSettings))]
    public void Validate_BadSetting_FailsNamingIt(string setting, string value)
    {
        // Arrange
        var options = new KeyVaultOptions { VaultUri = "https://my-vault.vault.azure.net/", SecretName = "widget-signing-key" };
        var property = typeof(KeyVaultOptions).GetProperty(setting)!;
        var type = Nullable.GetUnderlyingType(property.PropertyType) ?? property.PropertyType;
        property.SetValue(options, type == typeof(TimeSpan) ? TimeSpan.Parse(value, System.Globalization.CultureInfo.InvariantCulture)
            : type == typeof(int) ? int.Parse(value, System.Globalization.CultureInfo.InvariantCulture) : value);

        // Act
        var result = new KeyVaultOptionsValidator(new FixedAzureEnvironment(false)).Validate(null, options);

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("KeyVault:" + setting, result.FailureMessage, StringComparison.Ordinal);
    }
}
