namespace FunctionApp.Tests.Infra;

/// <summary>Security properties of the compiled ARM template: the values Azure receives.</summary>
public sealed class TemplateSecurityTests
{
    private static CompiledInfra Infra => CompiledInfra.Instance;

    [Fact]
    public void Site_IsHttpsOnlyWithTls12AndNoFtpOrBasicAuth()
    {
        var site = Infra.Resource("functionApp", "Microsoft.Web/sites");
        var siteConfig = site["properties"]!["siteConfig"]!;

        Assert.True((bool)site["properties"]!["httpsOnly"]!);
        Assert.Equal("1.2", (string?)siteConfig["minTlsVersion"]);
        Assert.Equal("1.2", (string?)siteConfig["scmMinTlsVersion"]);
        Assert.Equal("Disabled", (string?)siteConfig["ftpsState"]);
        Assert.False((bool)siteConfig["remoteDebuggingEnabled"]!);
        var policies = CompiledInfra.Resources(Infra.Module("functionApp")).Where(r => (string?)r["type"] == "Microsoft.Web/sites/basicPublishingCredentialsPolicies").ToList();
        Assert.Equal(2, policies.Count);
        Assert.Contains(policies, p => ((string)p["name"]!).EndsWith("'ftp')]", StringComparison.Ordinal));
        Assert.Contains(policies, p => ((string)p["name"]!).EndsWith("'scm')]", StringComparison.Ordinal));
        Assert.All(policies, p => Assert.False((bool)p["properties"]!["allow"]!));
    }

    [Fact]
    public void Site_RunsTheInProcessModelOnNet8AsTheUserAssignedIdentity()
    {
        var site = Infra.Resource("functionApp", "Microsoft.Web/sites");

        Assert.Equal("functionapp", (string?)site["kind"]);
        Assert.Equal("v8.0", (string?)site["properties"]!["siteConfig"]!["netFrameworkVersion"]);
        Assert.Null(site["properties"]!["siteConfig"]!["linuxFxVersion"]);
        Assert.Equal("UserAssigned", (string?)site["identity"]!["type"]);
        Assert.Equal("[format('{0}', parameters('identityId'))]", Assert.Single(site["identity"]!["userAssignedIdentities"]!.AsObject()).Key);
        // Key Vault references (WidgetStorage, the content share) resolve with that identity, not a system one.
        Assert.Equal("[parameters('identityId')]", (string?)site["properties"]!["keyVaultReferenceIdentity"]);
    }

    [Fact]
    public void Vault_UsesRbacWithSoftDeleteAndPurgeProtection()
    {
        var properties = Infra.Resource("keyVault", "Microsoft.KeyVault/vaults")["properties"]!;

        Assert.True((bool)properties["enableRbacAuthorization"]!);
        Assert.True((bool)properties["enableSoftDelete"]!);
        Assert.True((bool)properties["enablePurgeProtection"]!);
        Assert.False((bool)properties["enabledForTemplateDeployment"]!);
        Assert.Null(properties["accessPolicies"]);
        Assert.Equal("90", Infra.Resolve("keyVault", properties["softDeleteRetentionInDays"]!));
    }

    [Fact]
    public void VaultName_DerivedByDefault_OverridableToReCreateWhileTheOldOneIsSoftDeleted()
    {
        var parameter = Infra.Parameters["keyVaultName"]!;

        Assert.Equal(string.Empty, (string?)parameter["defaultValue"]);
        Assert.Equal(24, (int)parameter["maxLength"]!);
        Assert.Equal(
            "[if(empty(parameters('keyVaultName')), take(format('kv-{0}-{1}', parameters('environmentName'), variables('suffix')), 24), parameters('keyVaultName'))]",
            (string?)Infra.Main["variables"]!["names"]!["keyVault"]);
        Assert.Contains("docs/deploy.md", (string?)parameter["metadata"]!["description"], StringComparison.Ordinal);
    }

    [Fact]
    public void StorageAccounts_AreHttpsOnlyTls12WithNoPublicBlobAccess()
    {
        var accounts = Infra.ResourcesOfType("Microsoft.Storage/storageAccounts");

        Assert.Equal(2, accounts.Count);
        Assert.All(accounts, a =>
        {
            var properties = a.Resource["properties"]!;
            Assert.Equal("TLS1_2", (string?)properties["minimumTlsVersion"]);
            Assert.True((bool)properties["supportsHttpsTrafficOnly"]!);
            Assert.False((bool)properties["allowBlobPublicAccess"]!);
            Assert.True((bool)properties["defaultToOAuthAuthentication"]!);
            Assert.False((bool)properties["allowCrossTenantReplication"]!);
        });
        Assert.All(Infra.ResourcesOfType("Microsoft.Storage/storageAccounts/blobServices/containers"), c => Assert.Equal("None", (string?)c.Resource["properties"]!["publicAccess"]));
    }

    [Fact]
    public void Queues_InputPoisonOutputAndRejected_AreCreated()
    {
        var queues = Infra.ResourcesOfType("Microsoft.Storage/storageAccounts/queueServices/queues").Select(q => (string)q.Resource["name"]!).ToList();

        Assert.Equal(4, queues.Count);
        Assert.Contains(queues, q => q.Contains("parameters('inputQueueName')", StringComparison.Ordinal));
        Assert.Contains(queues, q => q.Contains("variables('poisonQueueName')", StringComparison.Ordinal));
        Assert.Equal("[format('{0}-poison', parameters('inputQueueName'))]", (string?)CompiledInfra.Template(Infra.Module("storage"))["variables"]!["poisonQueueName"]);
    }

    [Fact]
    public void ApplicationInsights_IsBackedByTheLogAnalyticsWorkspace()
    {
        var component = Infra.Resource("monitoring", "Microsoft.Insights/components");

        Assert.Equal("LogAnalytics", (string?)component["properties"]!["IngestionMode"]);
        Assert.Equal("[resourceId('Microsoft.OperationalInsights/workspaces', parameters('logAnalyticsName'))]", (string?)component["properties"]!["WorkspaceResourceId"]);
    }

    [Fact]
    public void Outputs_InEveryTemplate_CarryNoSecret()
    {
        var templates = Infra.Modules.Select(m => ((string)m["name"]!, CompiledInfra.Template(m))).Append(("main", Infra.Main));
        string[] secretish = ["listKeys", "listSecrets", "listCredentials", "listConnectionStrings", "AccountKey", "ConnectionString", "InstrumentationKey", "getSecret"];

        Assert.All(templates, t =>
        {
            foreach (var (name, output) in t.Item2["outputs"]?.AsObject() ?? [])
            {
                var type = (string?)output!["type"];
                Assert.False(type?.StartsWith("secure", StringComparison.OrdinalIgnoreCase) == true, $"{t.Item1}: output '{name}' is secure, so it holds a secret");
                var value = output["value"]!.ToJsonString();
                Assert.DoesNotContain(secretish, s => value.Contains(s, StringComparison.OrdinalIgnoreCase));
            }
        });
    }

    [Fact]
    public void Templates_NeverHoldTheSigningKey_OnlyTheConnectionSecrets()
    {
        var secrets = Infra.ResourcesOfType("Microsoft.KeyVault/vaults/secrets");

        // The template writes the two storage connection strings; the signing key is the key bootstrap's alone.
        Assert.Equal(["connectionSecrets", "connectionSecrets"], secrets.Select(s => s.Module));
        Assert.DoesNotContain(secrets, s => s.Resource.ToJsonString().Contains("signingSecretName", StringComparison.Ordinal));
        Assert.DoesNotContain(Infra.Parameters, p => ((string?)p.Value!["type"])!.StartsWith("secure", StringComparison.OrdinalIgnoreCase));
        // listKeys is read in one module only, and only into those secrets.
        Assert.Equal(["connectionSecrets"], Infra.Modules.Where(m => m.ToJsonString().Contains("listKeys", StringComparison.Ordinal)).Select(m => (string)m["name"]!));
    }

    [Fact]
    public void Parameters_OfMain_AllHaveDefaultsAndDescriptions()
    {
        Assert.All(Infra.Parameters, p =>
        {
            Assert.True(p.Value!["defaultValue"] is not null, $"main.bicep parameter '{p.Key}' has no default");
            Assert.False(string.IsNullOrWhiteSpace((string?)p.Value["metadata"]?["description"]), $"main.bicep parameter '{p.Key}' has no description");
        });
        Assert.Equal("[resourceGroup().location]", (string?)Infra.Parameters["location"]!["defaultValue"]);
    }

    [Fact]
    public void Outputs_OfMain_GiveThePipelineWhatItNeeds()
    {
        var outputs = Infra.Main["outputs"]!.AsObject();

        foreach (var name in new[] { "functionAppName", "functionAppHostName", "keyVaultName", "signingSecretName" })
        {
            Assert.True(outputs.ContainsKey(name), $"main.bicep has no output '{name}'");
            Assert.Equal("string", (string?)outputs[name]!["type"]);
        }
    }

    [Fact]
    public void ResourceNames_DeriveFromEnvironmentNameAndUniqueString()
    {
        var variables = Infra.Main["variables"]!.AsObject();

        Assert.Equal("[uniqueString(subscription().id, resourceGroup().id, parameters('environmentName'))]", (string?)variables["suffix"]);
        var names = variables["names"]!.AsObject();
        Assert.All(names, n => Assert.Contains("variables('suffix')", (string?)n.Value, StringComparison.Ordinal));
        Assert.All(names, n => Assert.Matches("parameters\\('environmentName'\\)|variables\\('compactEnvironment'\\)", (string?)n.Value));
    }
}
