namespace FunctionApp.Tests.Infra;

/// <summary>Source checks of infra/modules/keyVault.bicep.</summary>
public sealed class KeyVaultModuleTests
{
    [Fact]
    public void Vault_UsesRbacWithSoftDeleteAndPurgeProtection()
    {
        var module = InfraFiles.Module("keyVault");
        var vault = module.Resource("vault");
        var properties = vault.Body.Object("properties");

        Assert.Equal("Microsoft.KeyVault/vaults", vault.ResourceType);
        Assert.Equal("true", properties["enableRbacAuthorization"].Text);
        Assert.Equal("true", properties["enableSoftDelete"].Text);
        Assert.Equal("true", properties["enablePurgeProtection"].Text);
        Assert.Equal("softDeleteRetentionInDays", properties["softDeleteRetentionInDays"].Text);
        Assert.False(properties.Has("accessPolicies"));
        Assert.Equal("false", properties["enabledForTemplateDeployment"].Text);
        Assert.Equal("subscription().tenantId", properties["tenantId"].Text);
        Assert.Single(module.Resources);
    }

    [Fact]
    public void SoftDeleteRetention_DefaultsToTheMaximum()
    {
        var main = InfraFiles.Main;

        Assert.Equal("90", main.Param("keyVaultSoftDeleteRetentionInDays").Value!.Text);
        Assert.Equal("keyVaultSoftDeleteRetentionInDays", main.Module("keyVault").Body.Path("params.softDeleteRetentionInDays").Text);
    }
}
