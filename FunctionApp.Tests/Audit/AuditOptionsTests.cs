using FunctionApp.Tests.TestKit;
using WidgetSigning.Audit;

namespace FunctionApp.Tests.Audit;

/// <summary>The store may be off, and its key local, only on a developer's machine; errors name the setting, never the key.</summary>
public sealed class AuditOptionsTests
{
    [Fact]
    public void Validate_StoreOffInAzure_RefusedNamingTheSetting()
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: true));

        // Act
        var result = validator.Validate(null, new AuditOptions { Disabled = true });

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("Audit:Disabled is set, but this is Azure", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_StoreOffOutsideDevelopment_Refused()
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false, isDevelopment: false));

        // Act
        var result = validator.Validate(null, new AuditOptions { Disabled = true });

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("AZURE_FUNCTIONS_ENVIRONMENT=Development", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_StoreOffInDevelopment_Accepted()
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false));

        // Act
        var result = validator.Validate(null, new AuditOptions { Disabled = true });

        // Assert
        Assert.True(result.Succeeded);
    }

    [Fact]
    public void Validate_LocalKeyInAzure_RefusedWithoutTheKey()
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: true));

        // Act
        var result = validator.Validate(null, new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey });

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("Audit:LocalSigningKey is set, but this is Azure", result.FailureMessage, StringComparison.Ordinal);
        Assert.DoesNotContain(TestAudit.LocalSigningKey[5..], result.FailureMessage, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("whpk_JdkcCSKhvEuBpOMKysh/Sp8R79D2KgGMF6fqdxukYng=")]
    [InlineData("whsk_c2hvcnQ=")]
    [InlineData("K/AK5AzZ+RRptasbowBBOMACMfnEEkawZgr/aolldrU=")]
    public void Validate_MalformedLocalKey_RefusedNamingTheSettingNotTheValue(string value)
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false));

        // Act
        var result = validator.Validate(null, new AuditOptions { LocalSigningKey = value });

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("Audit:LocalSigningKey is not an Ed25519 key", result.FailureMessage, StringComparison.Ordinal);
        Assert.DoesNotContain(value[5..], result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_StoreTimeoutLongerThanWriteTimeout_RefusedNamingBothSettings()
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false));

        // Act
        var result = validator.Validate(null, new AuditOptions { StoreTimeout = TimeSpan.FromSeconds(11), WriteTimeout = TimeSpan.FromSeconds(10) });

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("Audit:StoreTimeout (00:00:11) must not be longer than Audit:WriteTimeout (00:00:10)", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_Defaults_Accepted()
    {
        // Arrange
        var validator = new AuditOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false));

        // Act
        var result = validator.Validate(null, new AuditOptions());

        // Assert
        Assert.True(result.Succeeded, result.FailureMessage);
    }
}
