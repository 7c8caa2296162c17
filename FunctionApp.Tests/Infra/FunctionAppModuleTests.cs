using FunctionApp.Tests.Infra.Bicep;

namespace FunctionApp.Tests.Infra;

/// <summary>Source checks of infra/modules/functionApp.bicep: the plan, the in-process .NET 8 site and its settings.</summary>
public sealed class FunctionAppModuleTests
{
    private static BicepFile Module => InfraFiles.Module("functionApp");

    private static IReadOnlyDictionary<string, BicepNode> Settings => InfraFiles.AppSettings(Module);

    private static BicepObject MainParams => InfraFiles.Main.Module("functionApp").Body.Object("params");

    [Fact]
    public void Plan_IsWindows_ConsumptionByDefault_ElasticPremiumByParameter()
    {
        var plan = Module.Resource("plan");

        Assert.Equal("Microsoft.Web/serverfarms", plan.ResourceType);
        Assert.Equal("false", plan.Body.Path("properties.reserved").Text);
        Assert.Equal("planSku", plan.Body.Path("sku.name").Text);
        Assert.Equal("isElasticPremium?'ElasticPremium':'Dynamic'", plan.Body.Path("sku.tier").Text);
        Assert.Equal("startsWith(planSku,'EP')", Module.Var("isElasticPremium").Value!.Text);
        var allowed = Assert.IsType<BicepArray>(Module.Param("planSku").Decorator("allowed")!.Arguments.Single());
        Assert.Equal(["Y1", "EP1", "EP2", "EP3"], allowed.Items.Select(InfraFiles.Literal));
        Assert.Equal("planSku", MainParams["planSku"].Text);
    }

    [Fact]
    public void Site_RunsTheInProcessModelOnNet8()
    {
        var site = Module.Resource("site");

        Assert.Equal("functionapp", InfraFiles.Literal(site.Body["kind"]));
        Assert.Equal("v8.0", InfraFiles.Literal(site.Body.Path("properties.siteConfig.netFrameworkVersion")));
        Assert.False(site.Body.Object("properties").Object("siteConfig").Has("linuxFxVersion"));
        Assert.Equal("~4", InfraFiles.Literal(Settings["FUNCTIONS_EXTENSION_VERSION"]));
        Assert.Equal("dotnet", InfraFiles.Literal(Settings["FUNCTIONS_WORKER_RUNTIME"]));
        Assert.Equal("1", InfraFiles.Literal(Settings["FUNCTIONS_INPROC_NET8_ENABLED"]));
        Assert.Equal("1", InfraFiles.Literal(Settings["WEBSITE_RUN_FROM_PACKAGE"]));
    }

    [Fact]
    public void Site_IsHttpsOnlyWithTls12AndNoFtpOrBasicAuth()
    {
        var site = Module.Resource("site");

        Assert.Equal("true", site.Body.Path("properties.httpsOnly").Text);
        Assert.Equal("1.2", InfraFiles.Literal(site.Body.Path("properties.siteConfig.minTlsVersion")));
        Assert.Equal("1.2", InfraFiles.Literal(site.Body.Path("properties.siteConfig.scmMinTlsVersion")));
        Assert.Equal("Disabled", InfraFiles.Literal(site.Body.Path("properties.siteConfig.ftpsState")));
        var policies = Module.ResourcesOfType("Microsoft.Web/sites/basicPublishingCredentialsPolicies").ToList();
        Assert.Equal(["ftp", "scm"], policies.Select(p => InfraFiles.Literal(p.Body["name"])).Order(StringComparer.Ordinal));
        Assert.All(policies, p =>
        {
            Assert.Equal("site", p.Body["parent"].Text);
            Assert.Equal("false", p.Body.Path("properties.allow").Text);
        });
    }

    [Fact]
    public void Site_RunsAsTheUserAssignedIdentity()
    {
        var identity = Module.Resource("site").Body.Object("identity");

        Assert.Equal("UserAssigned", InfraFiles.Literal(identity["type"]));
        Assert.Equal(["'${identityId}'"], identity.Object("userAssignedIdentities").Keys);
        Assert.Equal("identityId", Module.Resource("site").Body.Path("properties.keyVaultReferenceIdentity").Text);
        Assert.Equal("identity.outputs.id", MainParams["identityId"].Text);
        Assert.Equal("identity.outputs.clientId", MainParams["identityClientId"].Text);
    }

    [Fact]
    public void HostStorage_UsesTheIdentityNotAKey()
    {
        Assert.Equal("hostStorage.name", Settings["AzureWebJobsStorage__accountName"].Text);
        Assert.Equal("managedidentity", InfraFiles.Literal(Settings["AzureWebJobsStorage__credential"]));
        Assert.Equal("identityClientId", Settings["AzureWebJobsStorage__clientId"].Text);
        Assert.False(Settings.ContainsKey("AzureWebJobsStorage"));
        Assert.Equal("hostStorageAccountName", Module.Resource("hostStorage").Body["name"].Text);
        Assert.True(Module.Resource("hostStorage").Existing);
    }

    [Theory]
    [InlineData("WEBSITE_CONTENTAZUREFILECONNECTIONSTRING", "Azure Files")]
    [InlineData("WidgetStorage", "WindowsAzure.Storage")]
    public void KeyedSetting_SaysWhyItNeedsAKey(string setting, string reason)
    {
        var lines = Module.Source.Split('\n');
        var settingLine = Array.FindIndex(lines, l => l.Contains($"name: '{setting}'", StringComparison.Ordinal));
        var comment = string.Join('\n', lines[Math.Max(0, settingLine - 6)..settingLine]);

        Assert.True(settingLine > 0, $"no setting {setting}");
        Assert.Contains(reason, comment, StringComparison.Ordinal);
        Assert.Contains("key", comment, StringComparison.Ordinal);
        Assert.Contains($"`{setting}`", RepoFiles.ReadAllText("docs", "deploy.md"), StringComparison.Ordinal);
    }

    [Fact]
    public void KeyedSettings_AreOnlyTheContentShareAndTheQueueConnection()
    {
        var keyed = Settings.Where(s => s.Value.Text.Contains("listKeys", StringComparison.Ordinal)).Select(s => s.Key).Order(StringComparer.Ordinal);

        Assert.Equal(["WEBSITE_CONTENTAZUREFILECONNECTIONSTRING", "WidgetStorage"], keyed);
        Assert.Contains("AccountName=${hostStorage.name}", Settings["WEBSITE_CONTENTAZUREFILECONNECTIONSTRING"].Text, StringComparison.Ordinal);
        Assert.Contains("AccountName=${dataStorage.name}", Settings["WidgetStorage"].Text, StringComparison.Ordinal);
        Assert.Equal("toLower(functionAppName)", Settings["WEBSITE_CONTENTSHARE"].Text);
    }

    [Fact]
    public void KeyVaultSettings_PointAtTheVaultAndSecretName_NeverAKey()
    {
        Assert.Equal("keyVaultUri", Settings["KeyVault__VaultUri"].Text);
        Assert.Equal("signingSecretName", Settings["KeyVault__SecretName"].Text);
        Assert.Equal("identityClientId", Settings["KeyVault__ManagedIdentityClientId"].Text);
        Assert.DoesNotContain(Settings.Keys, k => k.StartsWith("Signing__", StringComparison.Ordinal));
        Assert.Equal("keyVault.outputs.vaultUri", MainParams["keyVaultUri"].Text);
        Assert.Equal("signingSecretName", MainParams["signingSecretName"].Text);
    }

    [Fact]
    public void QueueSettings_NameTheQueuesAndContainerTheTemplateCreates()
    {
        var main = InfraFiles.Main;
        var expected = new Dictionary<string, (string Param, string Default)>(StringComparer.Ordinal)
        {
            ["Queues__Input"] = ("inputQueueName", "widget-envelopes"),
            ["Queues__Output"] = ("outputQueueName", "widget-signatures"),
            ["Queues__Rejected"] = ("rejectedQueueName", "widget-envelopes-rejected"),
            ["Queues__ClaimCheckContainer"] = ("claimCheckContainerName", "widget-claims"),
            ["Queues__CanonicalContainer"] = ("canonicalContainerName", "widget-canonical"),
            ["Queues__RejectedContainer"] = ("rejectedContainerName", "widget-rejected"),
        };

        foreach (var (setting, (param, defaultValue)) in expected)
        {
            Assert.Equal(param, Settings[setting].Text);
            Assert.Equal(param, MainParams[param].Text);
            Assert.Equal(param, InfraFiles.Main.Module("storage").Body.Object("params")[param].Text);
            Assert.Equal(defaultValue, InfraFiles.Literal(main.Param(param).Value!));
        }
    }

    [Fact]
    public void QueueConnection_NamesTheDataAccountsConnectionSetting()
    {
        Assert.Equal("WidgetStorage", InfraFiles.Literal(Settings["Queues__Connection"]));
        Assert.Equal("dataStorageAccountName", Module.Resource("dataStorage").Body["name"].Text);
        Assert.True(Module.Resource("dataStorage").Existing);
        Assert.Equal("storage.outputs.dataStorageAccountName", MainParams["dataStorageAccountName"].Text);
    }

    [Fact]
    public void ApplicationInsights_ConnectionStringSettingComesFromTheComponent()
    {
        Assert.Equal("appInsights.properties.ConnectionString", Settings["APPLICATIONINSIGHTS_CONNECTION_STRING"].Text);
        var appInsights = Module.Resource("appInsights");
        Assert.True(appInsights.Existing);
        Assert.Equal("Microsoft.Insights/components", appInsights.ResourceType);
        Assert.Equal("monitoring.outputs.appInsightsName", MainParams["appInsightsName"].Text);
    }

    [Fact]
    public void AppSettings_AreAllLiteralNamesWithoutDuplicates()
    {
        var names = Module.Resource("site").Body.Path("properties.siteConfig") is BicepObject siteConfig
            ? siteConfig.Array("appSettings").Objects.Select(s => InfraFiles.Literal(s["name"])).ToList()
            : [];

        Assert.Equal(names.Count, names.Distinct(StringComparer.OrdinalIgnoreCase).Count());
        Assert.Equal(21, names.Count);
    }
}
