using FunctionApp.Tests.TestKit;
using WidgetSigning.Callers;

namespace WidgetSigning.Tests.Callers;

/// <summary><see cref="AuthOptionsValidator"/>: the settings the app refuses to start with.</summary>
public sealed class AuthOptionsValidatorTests
{
    [Fact]
    public void Validate_AuthorityWithoutTenant_FailsNamingTheSetting()
    {
        // Arrange: the local issuer on a developer's machine, and no tenant (every token's tid would go unchecked).
        var validator = new AuthOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false), hostValidatesTokens: true);
        var options = new AuthOptions { Authority = "http://127.0.0.1:7072/" + TestIssuer.TenantId + "/v2.0", Audience = TestIssuer.Audience };

        // Act
        var result = validator.Validate(null, options);

        // Assert
        Assert.True(result.Failed);
        Assert.Contains("Auth:TenantId is not set", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_AuthorityWithTenant_Succeeds()
    {
        // Arrange
        var validator = new AuthOptionsValidator(new FixedAzureEnvironment(isRunningInAzure: false), hostValidatesTokens: true);
        var options = new AuthOptions { Authority = "http://127.0.0.1:7072/" + TestIssuer.TenantId + "/v2.0", Audience = TestIssuer.Audience, TenantId = TestIssuer.TenantId };

        // Act
        var result = validator.Validate(null, options);

        // Assert
        Assert.True(result.Succeeded);
    }
}
