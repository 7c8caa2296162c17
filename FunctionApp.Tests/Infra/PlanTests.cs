namespace FunctionApp.Tests.Infra;

/// <summary>The plan choice in the compiled template and the parameters files: Y1 by default, EP1-EP3 by parameter.</summary>
public sealed class PlanTests
{
    private static CompiledInfra Infra => CompiledInfra.Instance;

    [Fact]
    public void PlanSku_DefaultsToConsumption_ElasticPremiumByParameter()
    {
        Assert.Equal(["Y1", "EP1", "EP2", "EP3"], Infra.Allowed("planSku"));
        Assert.Equal("Y1", (string?)Infra.Parameters["planSku"]!["defaultValue"]);
    }

    [Fact]
    public void Plan_IsWindows_WithTierAndKindFollowingTheSku()
    {
        var plan = Infra.Resource("functionApp", "Microsoft.Web/serverfarms");
        var variables = CompiledInfra.Template(Infra.Module("functionApp"))["variables"]!;

        Assert.Equal("Y1", Infra.Resolve("functionApp", plan["sku"]!["name"]!));
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
