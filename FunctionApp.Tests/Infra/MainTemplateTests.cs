using FunctionApp.Tests.Infra.Bicep;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// Source checks of infra/main.bicep and main.bicepparam (structure read by <see cref="BicepParser"/>; the real
/// Bicep compiler runs in the pipeline's Build stage, see docs/deploy.md).
/// </summary>
public sealed class MainTemplateTests
{
    private static readonly Dictionary<string, string> ExpectedModules = new(StringComparer.Ordinal)
    {
        ["monitoring"] = "modules/monitoring.bicep",
        ["identity"] = "modules/identity.bicep",
        ["storage"] = "modules/storage.bicep",
        ["keyVault"] = "modules/keyVault.bicep",
        ["roleAssignments"] = "modules/roleAssignments.bicep",
        ["functionApp"] = "modules/functionApp.bicep",
    };

    [Fact]
    public void Main_Modules_OnePerConcernAndNoResourcesOfItsOwn()
    {
        var main = InfraFiles.Main;

        Assert.Equal(
            ExpectedModules.OrderBy(m => m.Key, StringComparer.Ordinal),
            main.Modules.Select(m => KeyValuePair.Create(m.Name, m.Type!)).OrderBy(m => m.Key, StringComparer.Ordinal));
        Assert.Empty(main.Resources);
        Assert.All(main.Modules, m => Assert.True(File.Exists(RepoFiles.File("infra", m.Type!)), $"{m.Type} is missing"));
        Assert.Equal(ExpectedModules.Values.Order(StringComparer.Ordinal), InfraFiles.BicepPaths.Where(p => p.StartsWith("modules/", StringComparison.Ordinal)));
    }

    [Theory]
    [MemberData(nameof(InfraFiles.BicepPathData), MemberType = typeof(InfraFiles))]
    public void EveryParamAndOutput_InEveryFile_HasADescription(string path)
    {
        var file = BicepFile.Load(path);

        Assert.All(file.Params.Concat(file.Outputs), d => Assert.False(string.IsNullOrWhiteSpace(d.Description), $"{path}: {d.Kind} '{d.Name}' has no @description"));
    }

    [Theory]
    [MemberData(nameof(InfraFiles.BicepPathData), MemberType = typeof(InfraFiles))]
    public void EveryModuleParam_IsPassedByMain_AndEveryMainParamIsUsed(string path)
    {
        var main = InfraFiles.Main;
        var file = BicepFile.Load(path);
        if (path == "main.bicep")
        {
            foreach (var param in main.Params)
            {
                Assert.True(
                    System.Text.RegularExpressions.Regex.Matches(main.Source, $@"\b{param.Name}\b").Count > 1,
                    $"main.bicep param '{param.Name}' is never used");
            }

            return;
        }

        var module = main.Modules.Single(m => m.Type == path);
        var passed = module.Body.Object("params").Keys.ToHashSet(StringComparer.Ordinal);
        Assert.Equal(file.Params.Select(p => p.Name).Order(StringComparer.Ordinal), passed.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void Main_EveryParam_HasASafeDefault()
    {
        var main = InfraFiles.Main;

        Assert.All(main.Params, p => Assert.True(p.Value is not null, $"main.bicep param '{p.Name}' has no default"));
        Assert.DoesNotContain(main.Params, p => p.IsSecure);
        Assert.Equal("Y1", InfraFiles.Literal(main.Param("planSku").Value!));
        Assert.Equal(string.Empty, InfraFiles.Literal(main.Param("secretsOfficerPrincipalId").Value!));
        Assert.Equal("resourceGroup().location", main.Param("location").Value!.Text);
    }

    [Fact]
    public void Main_ResourceNames_DeriveFromEnvironmentNameAndUniqueString()
    {
        var main = InfraFiles.Main;

        Assert.Equal("uniqueString(subscription().id,resourceGroup().id,environmentName)", main.Var("suffix").Value!.Text);
        var names = Assert.IsType<BicepObject>(main.Var("names").Value);
        Assert.Equal(8, names.Properties.Count);
        Assert.All(names.Properties, n =>
        {
            Assert.Contains("${suffix}", n.Value.Text, StringComparison.Ordinal);
            Assert.True(
                n.Value.Text.Contains("${environmentName}", StringComparison.Ordinal) || n.Value.Text.Contains("${compactEnvironment}", StringComparison.Ordinal),
                $"names.{n.Key} does not include the environment name");
        });

        // Every module parameter that names a resource gets it from 'names'.
        var nameParams = main.Modules.SelectMany(m => m.Body.Object("params").Properties)
            .Where(p => p.Key.EndsWith("Name", StringComparison.Ordinal) && p.Value.Text.StartsWith("names.", StringComparison.Ordinal));
        Assert.Equal(8, nameParams.Count());
    }

    [Theory]
    [MemberData(nameof(InfraFiles.BicepPathData), MemberType = typeof(InfraFiles))]
    public void Resources_InEveryModule_TakeTheirNamesFromParameters(string path)
    {
        var file = BicepFile.Load(path);
        var paramNames = file.Params.Select(p => p.Name).ToHashSet(StringComparer.Ordinal);

        foreach (var resource in file.Resources.Where(r => !r.Body.Has("parent") && r.ResourceType != "Microsoft.Authorization/roleAssignments"))
        {
            Assert.True(paramNames.Contains(resource.Body["name"].Text), $"{path}: resource '{resource.Name}' is not named by a parameter");
        }
    }

    [Fact]
    public void Main_FunctionApp_DeploysAfterItsRoleAssignments()
    {
        var functionApp = InfraFiles.Main.Module("functionApp");

        Assert.Equal("[roleAssignments]", functionApp.Body["dependsOn"].Text);
    }

    [Fact]
    public void Main_Outputs_GiveThePipelineWhatItNeeds()
    {
        var main = InfraFiles.Main;

        Assert.Equal("functionApp.outputs.name", main.Output("functionAppName").Value!.Text);
        Assert.Equal("functionApp.outputs.defaultHostName", main.Output("functionAppHostName").Value!.Text);
        Assert.Equal("keyVault.outputs.name", main.Output("keyVaultName").Value!.Text);
        Assert.Equal("signingSecretName", main.Output("signingSecretName").Value!.Text);
    }

    [Theory]
    [MemberData(nameof(InfraFiles.BicepPathData), MemberType = typeof(InfraFiles))]
    public void Outputs_InEveryFile_CarryNoSecret(string path)
    {
        var file = BicepFile.Load(path);
        string[] secretish = ["listKeys", "listSecrets", "listCredentials", "ConnectionString", "InstrumentationKey", "AccountKey", "secret()", "getSecret"];

        Assert.All(file.Outputs, o =>
        {
            Assert.False(o.IsSecure, $"{path}: output '{o.Name}' is @secure, so it holds a secret");
            Assert.DoesNotContain(secretish, s => o.Value!.Text.Contains(s, StringComparison.OrdinalIgnoreCase));
        });
    }

    [Fact]
    public void Templates_NeverHoldTheSigningKey()
    {
        var files = InfraFiles.All().ToList();

        Assert.DoesNotContain(files.SelectMany(f => f.Resources), r => r.ResourceType!.StartsWith("Microsoft.KeyVault/vaults/", StringComparison.OrdinalIgnoreCase));
        Assert.DoesNotContain(files.SelectMany(f => f.Params), p => p.IsSecure);
        // The one key read anywhere is the host account's, for the content share (see FunctionAppModuleTests).
        Assert.Equal(["modules/functionApp.bicep"], files.Where(f => f.Source.Contains("listKeys", StringComparison.Ordinal)).Select(f => f.RelativePath));
    }

    [Fact]
    public void ParametersFile_UsesMainAndSetsOnlyItsPlainParams()
    {
        var parameters = BicepFile.Load("main.bicepparam");
        var main = InfraFiles.Main;

        Assert.Equal("./main.bicep", parameters.Declarations.Single(d => d.Kind == BicepDeclarationKind.Using).Name);
        Assert.NotEmpty(parameters.Params);
        Assert.All(parameters.Params, p =>
        {
            var declared = main.Param(p.Name);
            Assert.False(declared.IsSecure);
            Assert.NotNull(p.Value);
        });
        Assert.Equal("Y1", InfraFiles.Literal(parameters.Param("planSku").Value!));
    }
}
