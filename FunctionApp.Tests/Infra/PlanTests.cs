namespace FunctionApp.Tests.Infra;

/// <summary>
/// The plan choice in the compiled template and the parameters files: EP1 by default (queue signing needs runtime
/// scale monitoring, which only Elastic Premium has), Y1 for HTTP-only use.
/// </summary>
public sealed class PlanTests
{
    private static CompiledInfra Infra => CompiledInfra.Instance;

    [Fact]
    public void PlanSku_DefaultsToElasticPremiumEP1_ConsumptionByParameter()
    {
        Assert.Equal(["Y1", "EP1", "EP2", "EP3"], Infra.Allowed("planSku"));
        Assert.Equal("EP1", (string?)Infra.Parameters["planSku"]!["defaultValue"]);
        Assert.Contains("HTTP-only", (string?)Infra.Parameters["planSku"]!["metadata"]!["description"], StringComparison.Ordinal);
    }

    [Fact]
    public void ElasticPremium_TurnsOnRuntimeScaleMonitoring_WithTheAlwaysReadyInstanceItNeeds()
    {
        var siteConfig = Infra.Resource("functionApp", "Microsoft.Web/sites")["properties"]!["siteConfig"]!;

        // The scale controller cannot watch a custom trigger's queue itself; on EP it asks the host's IScaleMonitor.
        Assert.Equal("[variables('isElasticPremium')]", (string?)siteConfig["functionsRuntimeScaleMonitoringEnabled"]);
        Assert.Equal("[if(variables('isElasticPremium'), 1, null())]", (string?)siteConfig["minimumElasticInstanceCount"]);
        Assert.Equal("[if(variables('isElasticPremium'), 1, null())]", (string?)siteConfig["preWarmedInstanceCount"]);
        Assert.Equal("EP1", Infra.Resolve("functionApp", Infra.Resource("functionApp", "Microsoft.Web/serverfarms")["sku"]!["name"]!));
    }

    [Fact]
    public void Plan_IsWindows_WithTierAndKindFollowingTheSku()
    {
        var plan = Infra.Resource("functionApp", "Microsoft.Web/serverfarms");
        var variables = CompiledInfra.Template(Infra.Module("functionApp"))["variables"]!;

        Assert.Equal("EP1", Infra.Resolve("functionApp", plan["sku"]!["name"]!));
        Assert.Equal("[startsWith(parameters('planSku'), 'EP')]", (string?)variables["isElasticPremium"]);
        Assert.Equal("[if(variables('isElasticPremium'), 'ElasticPremium', 'Dynamic')]", (string?)plan["sku"]!["tier"]);
        Assert.Equal("[if(variables('isElasticPremium'), 'elastic', 'functionapp')]", (string?)plan["kind"]);
        Assert.False((bool)plan["properties"]!["reserved"]!);
        Assert.Equal("[if(variables('isElasticPremium'), parameters('maximumElasticWorkerCount'), null())]", (string?)plan["properties"]!["maximumElasticWorkerCount"]);
    }

    [Theory]
    [InlineData("main.consumption.bicepparam", "Y1")]
    [InlineData("main.elastic-premium.bicepparam", "EP1")]
    public void ParametersFile_PicksItsPlan_AndSetsOnlyPlainParametersMainDeclares(string file, string sku)
    {
        var parameters = Infra.ParameterFiles[file]["parameters"]!.AsObject();

        Assert.Equal(sku, (string?)parameters["planSku"]!["value"]);
        Assert.All(parameters, p =>
        {
            Assert.True(Infra.Parameters.ContainsKey(p.Key), $"{file} sets '{p.Key}', which main.bicep does not declare");
            Assert.NotNull(p.Value!["value"]);
            Assert.Null(p.Value["reference"]);
        });
    }
}
