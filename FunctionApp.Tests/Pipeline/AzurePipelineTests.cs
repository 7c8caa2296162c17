using FunctionApp.Tests.Infra;
using YamlDotNet.RepresentationModel;
using static FunctionApp.Tests.Pipeline.PipelineDocument;

namespace FunctionApp.Tests.Pipeline;

/// <summary>azure-pipelines.yml: its stages, what each runs, and that it matches the README and infra/main.bicep.</summary>
public sealed class AzurePipelineTests
{
    private static readonly string[] DeployingStages = ["Infrastructure", "KeyBootstrap", "Deploy"];

    private readonly PipelineDocument _pipeline = PipelineDocument.Load();

    [Fact]
    public void Stages_RunBuildInfrastructureKeyBootstrapDeployThenSmokeTest()
    {
        Assert.Equal(["Build", "Infrastructure", "KeyBootstrap", "Deploy", "SmokeTest"], _pipeline.Stages.Select(s => Scalar(s, "stage")));
        Assert.Equal(["Build"], DependsOn(_pipeline.Stage("Infrastructure")));
        Assert.Equal(["Infrastructure"], DependsOn(_pipeline.Stage("KeyBootstrap")));
        Assert.Contains("KeyBootstrap", DependsOn(_pipeline.Stage("Deploy")));
        Assert.Contains("Deploy", DependsOn(_pipeline.Stage("SmokeTest")));
    }

    [Fact]
    public void Build_TestStep_RunsTheReadmeTestCommand()
    {
        var readme = ReadmeTestCommand.Read();

        var testScripts = Scripts(_pipeline.Stage("Build")).Where(s => s.StartsWith("dotnet test", StringComparison.Ordinal)).ToList();

        var script = Assert.Single(testScripts);
        Assert.StartsWith(readme + " ", script + " ", StringComparison.Ordinal);
        var publish = Assert.Single(Tasks(_pipeline.Stage("Build"), "PublishTestResults@2"));
        Assert.Equal("succeededOrFailed()", Scalar(publish, "condition"));
        Assert.Contains("--logger trx", script, StringComparison.Ordinal);
    }

    [Fact]
    public void Build_RestoresBuildsAndPublishesTheAppAsAZipArtifact()
    {
        var build = _pipeline.Stage("Build");
        var scripts = Scripts(build).ToList();

        Assert.Contains(scripts, s => s.StartsWith("dotnet restore", StringComparison.Ordinal));
        Assert.Contains(scripts, s => s.StartsWith("dotnet build", StringComparison.Ordinal));
        Assert.Contains(scripts, s => s.StartsWith("dotnet publish FunctionApp/FunctionApp.csproj -c Release", StringComparison.Ordinal));
        var zip = Assert.Single(Tasks(build, "ArchiveFiles@2"));
        Assert.Equal("zip", Input(zip, "archiveType"));
        Assert.EndsWith("/app/FunctionApp.zip", Input(zip, "archiveFile"), StringComparison.Ordinal);
        Assert.Contains(Tasks(build, "PublishPipelineArtifact@1"), t => Input(t, "artifact") == "app");
    }

    [Fact]
    public void Build_CompilesAndLintsTheBicepWithTheRealCompiler()
    {
        var bicep = Assert.Single(Scripts(_pipeline.Stage("Build")), s => s.Contains("az bicep build", StringComparison.Ordinal));

        Assert.Contains("az bicep build --file infra/main.bicep", bicep, StringComparison.Ordinal);
        Assert.Contains("az bicep build-params --file infra/main.bicepparam", bicep, StringComparison.Ordinal);
        Assert.Contains("az bicep lint --file infra/main.bicep", bicep, StringComparison.Ordinal);
        Assert.Contains("set -euo pipefail", bicep, StringComparison.Ordinal);
    }

    [Fact]
    public void Infrastructure_RunsWhatIfThenCreate_FromTheBicep()
    {
        var task = Assert.Single(Tasks(_pipeline.Stage("Infrastructure"), "AzureCLI@2"));
        var script = Input(task, "inlineScript");

        var whatIf = script.IndexOf("az deployment group what-if", StringComparison.Ordinal);
        var create = script.IndexOf("az deployment group create", StringComparison.Ordinal);
        Assert.True(whatIf >= 0 && create > whatIf, "what-if must run before create");
        Assert.Contains("--template-file infra/main.bicep --parameters infra/main.bicepparam", script, StringComparison.Ordinal);
        Assert.Contains("set -euo pipefail", script, StringComparison.Ordinal);
        Assert.Equal("deployOutputs", Scalar(task, "name"));
    }

    [Fact]
    public void Infrastructure_PassesOnlyParametersMainDeclares_AndExportsOutputsMainHas()
    {
        var main = InfraFiles.Main;
        var script = Input(Assert.Single(Tasks(_pipeline.Stage("Infrastructure"), "AzureCLI@2")), "inlineScript");

        foreach (var param in new[] { "environmentName", "planSku", "location", "secretsOfficerPrincipalId", "secretsOfficerPrincipalType" })
        {
            Assert.Contains($"{param}=", script, StringComparison.Ordinal);
            Assert.NotNull(main.Param(param));
        }

        var exported = script[(script.IndexOf("for name in", StringComparison.Ordinal) + "for name in".Length)..].Split(';')[0]
            .Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(["functionAppName", "functionAppHostName", "keyVaultName", "signingSecretName"], exported);
        Assert.All(exported, name => Assert.NotNull(main.Output(name)));
    }

    [Fact]
    public void LaterStages_TakeResourceNamesFromTheDeploymentOutputs()
    {
        foreach (var stageName in new[] { "KeyBootstrap", "Deploy", "SmokeTest" })
        {
            var variables = Mapping(_pipeline.Stage(stageName), "variables");
            Assert.NotEmpty(variables.Children);
            foreach (var (key, value) in variables.Children.Select(c => (((YamlScalarNode)c.Key).Value!, ((YamlScalarNode)c.Value).Value!)))
            {
                Assert.Equal($"$[ stageDependencies.Infrastructure.Provision.outputs['Provision.deployOutputs.{key}'] ]", value);
            }
        }
    }

    [Fact]
    public void KeyBootstrap_RunsTheCreateOnceScript()
    {
        var task = Assert.Single(Tasks(_pipeline.Stage("KeyBootstrap"), "AzureCLI@2"));

        Assert.Equal("infra/scripts/bootstrap-signing-key.sh", Input(task, "scriptPath"));
        Assert.True(File.Exists(RepoFiles.File("infra", "scripts", "bootstrap-signing-key.sh")));
        Assert.Equal("$(keyVaultName) $(signingSecretName)", Input(task, "arguments"));
    }

    [Fact]
    public void Deploy_UsesAzureFunctionApp2WithTheBuildArtifact()
    {
        var stage = _pipeline.Stage("Deploy");
        var task = Assert.Single(Tasks(stage, "AzureFunctionApp@2"));

        Assert.Equal("functionApp", Input(task, "appType"));
        Assert.Equal("$(functionAppName)", Input(task, "appName"));
        Assert.Equal("$(Pipeline.Workspace)/app/FunctionApp.zip", Input(task, "package"));
        Assert.Equal("runFromPackage", Input(task, "deploymentMethod"));
        Assert.Contains(Steps(stage), s => Scalar(s, "download") == "current" && Scalar(s, "artifact") == "app");
    }

    [Fact]
    public void SmokeTest_SignsAKnownAnswerVectorAgainstTheDeployedHost()
    {
        var task = Assert.Single(Tasks(_pipeline.Stage("SmokeTest"), "AzureCLI@2"));

        Assert.Equal("infra/scripts/smoke-test.sh", Input(task, "scriptPath"));
        var arguments = Input(task, "arguments").Split(' ');
        Assert.Equal("https://$(functionAppHostName)", arguments[0]);
        Assert.True(Directory.Exists(RepoFiles.File(arguments[^1], "one-widget")), $"{arguments[^1]}/one-widget is missing");
    }

    [Fact]
    public void DeployingStages_RunAsDeploymentJobsInAnEnvironment()
    {
        foreach (var stageName in DeployingStages)
        {
            var job = Assert.Single(Jobs(_pipeline.Stage(stageName)));
            Assert.NotNull(Scalar(job, "deployment"));
            Assert.Equal("${{ variables.pipelineEnvironment }}", Scalar(job, "environment"));
        }

        Assert.Contains("pipelineEnvironment", _pipeline.Variables.Keys);
    }

    [Fact]
    public void AzureTasks_UseTheServiceConnectionVariable()
    {
        var azureTasks = _pipeline.Stages.SelectMany(Steps).Where(s => Scalar(s, "task") is "AzureCLI@2" or "AzureFunctionApp@2").ToList();

        Assert.Equal(4, azureTasks.Count);
        Assert.All(azureTasks, t => Assert.Equal("${{ variables.serviceConnection }}", Input(t, "azureSubscription")));
        foreach (var name in new[] { "serviceConnection", "environmentName", "resourceGroupName", "location", "planSku" })
        {
            Assert.Contains(name, _pipeline.Variables.Keys);
        }
    }

    [Fact]
    public void CiRun_TestStep_RunsTheReadmeTestCommand()
    {
        var readme = ReadmeTestCommand.Read();

        var testLines = RepoFiles.ReadAllText(".ci", "run").Split('\n').Select(l => l.Trim()).Where(l => l.StartsWith("dotnet test", StringComparison.Ordinal)).ToList();

        var line = Assert.Single(testLines);
        Assert.StartsWith(readme + " ", line + " ", StringComparison.Ordinal);
    }

    [Fact]
    public void Pipeline_InstallsNoFunctionsCoreTools()
    {
        Assert.DoesNotContain("azure-functions-core-tools", RepoFiles.ReadAllText("azure-pipelines.yml"), StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("azure-functions-core-tools", RepoFiles.ReadAllText(".ci", "run"), StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("azure-functions-core-tools", RepoFiles.ReadAllText("package.json"), StringComparison.OrdinalIgnoreCase);
    }
}
