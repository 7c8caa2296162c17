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
        // No setting is a Key Vault reference today; should one be added, it resolves with that identity, not a system one.
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

        Assert.Equal(3, accounts.Count);
        Assert.All(accounts, a =>
        {
            Assert.Equal("[variables('accountProperties')]", (string?)a.Resource["properties"]);
            var properties = CompiledInfra.Template(Infra.Module("storage"))["variables"]!["accountProperties"]!;
            Assert.Equal("TLS1_2", (string?)properties["minimumTlsVersion"]);
            Assert.True((bool)properties["supportsHttpsTrafficOnly"]!);
            Assert.False((bool)properties["allowBlobPublicAccess"]!);
            Assert.True((bool)properties["defaultToOAuthAuthentication"]!);
            Assert.False((bool)properties["allowCrossTenantReplication"]!);
        });
        Assert.All(Infra.ResourcesOfType("Microsoft.Storage/storageAccounts/blobServices/containers"), c => Assert.Equal("None", (string?)c.Resource["properties"]!["publicAccess"]));
    }

    [Fact]
    public void StorageAccounts_DataHostAndDeployment_AllowNoSharedKey()
    {
        var storage = CompiledInfra.Template(Infra.Module("storage"));
        var accounts = Infra.ResourcesOfType("Microsoft.Storage/storageAccounts");

        // All three accounts take their properties from one variable, which turns shared keys off.
        Assert.False((bool)storage["variables"]!["accountProperties"]!["allowSharedKeyAccess"]!);
        Assert.Equal(3, accounts.Count);
        Assert.Contains(accounts, a => (string?)a.Resource["name"] == "[parameters('deploymentStorageAccountName')]");
        Assert.All(accounts, a => Assert.Equal("[variables('accountProperties')]", (string?)a.Resource["properties"]));
        Assert.Contains(accounts, a => (string?)a.Resource["name"] == "[parameters('dataStorageAccountName')]");
        // No key is ever read, so none can reach a setting, a secret or an output.
        Assert.DoesNotContain("listKeys", Infra.Main.ToJsonString(), StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("AccountKey", Infra.Main.ToJsonString(), StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void DiagnosticSettings_KeyVaultAuditEventAndEveryStorageService_GoToTheWorkspace()
    {
        var settings = Infra.ResourcesOfType("Microsoft.Insights/diagnosticSettings");
        const string workspace = "[reference(resourceId('Microsoft.Resources/deployments', 'monitoring'), '2025-04-01').outputs.workspaceId.value]";

        var vault = Assert.Single(settings, s => s.Module == "keyVault").Resource;
        Assert.Equal("[resourceId('Microsoft.KeyVault/vaults', parameters('keyVaultName'))]", (string?)vault["scope"]);
        Assert.Contains(vault["properties"]!["logs"]!.AsArray(), l => (string?)l!["category"] == "AuditEvent" && (bool)l["enabled"]!);
        Assert.Equal(workspace, (string?)Infra.Module("keyVault")["properties"]!["parameters"]!["workspaceId"]!["value"]);

        var storage = settings.Where(s => s.Module == "storage").Select(s => (string)s.Resource["scope"]!).Order(StringComparer.Ordinal).ToList();
        Assert.Equal(
            [
                "[resourceId('Microsoft.Storage/storageAccounts/blobServices', parameters('dataStorageAccountName'), 'default')]",
                "[resourceId('Microsoft.Storage/storageAccounts/blobServices', parameters('deploymentStorageAccountName'), 'default')]",
                "[resourceId('Microsoft.Storage/storageAccounts/blobServices', parameters('hostStorageAccountName'), 'default')]",
                "[resourceId('Microsoft.Storage/storageAccounts/queueServices', parameters('dataStorageAccountName'), 'default')]",
                "[resourceId('Microsoft.Storage/storageAccounts/queueServices', parameters('hostStorageAccountName'), 'default')]",
                "[resourceId('Microsoft.Storage/storageAccounts/tableServices', parameters('dataStorageAccountName'), 'default')]",
                "[resourceId('Microsoft.Storage/storageAccounts/tableServices', parameters('hostStorageAccountName'), 'default')]",
            ],
            storage);
        var logs = CompiledInfra.Template(Infra.Module("storage"))["variables"]!["serviceLogs"]!.AsArray().Select(l => (string)l!["category"]!);
        Assert.Equal(["StorageRead", "StorageWrite", "StorageDelete"], logs);
        Assert.All(settings, s => Assert.Equal("[parameters('workspaceId')]", (string?)s.Resource["properties"]!["workspaceId"]));
        Assert.Equal(workspace, (string?)Infra.Module("storage")["properties"]!["parameters"]!["workspaceId"]!["value"]);
    }

    [Fact]
    public void LintSuppressions_OnlyForTheDiagnosticSettingsApiVersion()
    {
        foreach (var file in Directory.GetFiles(RepoFiles.File("infra"), "*.bicep*", SearchOption.AllDirectories))
        {
            var lines = File.ReadAllLines(file);
            for (var i = 0; i < lines.Length; i++)
            {
                if (lines[i].Contains("#disable-", StringComparison.Ordinal))
                {
                    Assert.Equal("#disable-next-line use-recent-api-versions", lines[i].Trim());
                    Assert.Contains("'Microsoft.Insights/diagnosticSettings@", lines[i + 1], StringComparison.Ordinal);
                }
            }
        }
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
    public void Templates_WriteNoSecret_SoNoneLacksAnExpiry()
    {
        // Every secret the template writes must carry exp (an Azure Policy often denies secrets without one); the
        // template writes none: no storage key is stored anywhere and the signing key is the key bootstrap's alone,
        // which sets exp itself (BootstrapSigningKeyScriptTests).
        Assert.DoesNotContain(Infra.ResourcesOfType("Microsoft.KeyVault/vaults/secrets"), s => s.Resource["properties"]?["attributes"]?["exp"] is null);
        Assert.Empty(Infra.ResourcesOfType("Microsoft.KeyVault/vaults/secrets"));
        Assert.DoesNotContain(Infra.Parameters, p => ((string?)p.Value!["type"])!.StartsWith("secure", StringComparison.OrdinalIgnoreCase));
        Assert.DoesNotContain("@Microsoft.KeyVault(", Infra.Main.ToJsonString(), StringComparison.Ordinal);
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
