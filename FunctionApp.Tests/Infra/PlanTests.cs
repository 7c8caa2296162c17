namespace FunctionApp.Tests.Infra;

/// <summary>
/// The plan choice in the compiled template and the parameters files: the isolated app on Flex Consumption FC1 by
/// default; the in-process app on Elastic Premium (its own queue trigger needs runtime scale monitoring, which only EP
/// has). FlexConsumptionTests checks each parameter file's evaluated deployment and the refused combinations.
/// </summary>
public sealed class PlanTests
{
    private static CompiledInfra Infra => CompiledInfra.Instance;

    [Fact]
    public void PlanSku_DefaultsToFlexConsumptionFC1_ElasticPremiumForTheInProcessApp()
    {
        Assert.Equal(["FC1", "EP1", "EP2", "EP3", "Y1"], Infra.Allowed("planSku"));
        Assert.Equal("FC1", (string?)Infra.Parameters["planSku"]!["defaultValue"]);
        Assert.Contains("Y1 is refused for both", (string?)Infra.Parameters["planSku"]!["metadata"]!["description"], StringComparison.Ordinal);
        // Both app modules get the checked SKU: a refused combination stops at fail() before any module sees it.
        Assert.Equal("[variables('checkedPlanSku')]", (string?)Infra.Module("functionApp")["properties"]!["parameters"]!["planSku"]!["value"]);
        Assert.Equal("[variables('checkedPlanSku')]", (string?)Infra.Module("flexFunctionApp")["properties"]!["parameters"]!["planSku"]!["value"]);
        Assert.StartsWith("[if(empty(variables('planRefusal')), parameters('planSku'), fail(variables('planRefusal')))]", (string?)Infra.Main["variables"]!["checkedPlanSku"], StringComparison.Ordinal);
        Assert.Equal("[variables('isolated')]", (string?)Infra.Module("flexFunctionApp")["condition"]);
        Assert.Equal("[equals(parameters('app'), 'isolated')]", (string?)Infra.Main["variables"]!["isolated"]);
        Assert.Equal("[not(variables('isolated'))]", (string?)Infra.Module("functionApp")["condition"]);
    }

    [Fact]
    public void ElasticPremium_TurnsOnRuntimeScaleMonitoring_WithTheAlwaysReadyInstanceItNeeds()
    {
        var siteConfig = Infra.Resource("functionApp", "Microsoft.Web/sites")["properties"]!["siteConfig"]!;

        // The scale controller cannot watch a custom trigger's queue itself; on EP it asks the host's IScaleMonitor.
        Assert.True((bool)siteConfig["functionsRuntimeScaleMonitoringEnabled"]!);
        Assert.Equal(1, (int)siteConfig["minimumElasticInstanceCount"]!);
        Assert.Equal(1, (int)siteConfig["preWarmedInstanceCount"]!);
    }

    [Fact]
    public void InProcessPlan_IsWindowsElasticPremium()
    {
        var plan = Infra.Resource("functionApp", "Microsoft.Web/serverfarms");

        Assert.Equal("[parameters('planSku')]", (string?)plan["sku"]!["name"]);
        Assert.Equal("ElasticPremium", (string?)plan["sku"]!["tier"]);
        Assert.Equal("elastic", (string?)plan["kind"]);
        Assert.False((bool)plan["properties"]!["reserved"]!);
        Assert.Equal("[parameters('maximumElasticWorkerCount')]", (string?)plan["properties"]!["maximumElasticWorkerCount"]);
    }

    [Theory]
    [InlineData("main.flex-consumption.bicepparam", "FC1")]
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
