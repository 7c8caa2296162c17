using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;
using YamlDotNet.RepresentationModel;
using static FunctionApp.Tests.Delivery.PipelineDocument;

namespace FunctionApp.Tests.Delivery;

/// <summary>
/// azure-pipelines.yml: stages and their order (plan before the approval, apply exactly what was planned), the pinned
/// Bicep compiler, runtime parameters, one build configuration, and least privilege around the signing key.
/// </summary>
public sealed class AzurePipelineTests
{
    private static readonly string[] StageOrder = ["Build", "Plan", "Apply", "SmokeTest"];

    private static readonly string[] ExportedOutputs = ["app", "functionAppName", "functionAppHostName", "keyVaultName", "signingSecretName", "deploymentStorageAccountName", "packageContainerName", "dataStorageAccountName", "inputQueueName", "outputQueueName"];

    private readonly PipelineDocument _pipeline = PipelineDocument.Load();

    private static string Yaml => RepoFiles.ReadAllText("azure-pipelines.yml");

    private string ApplyScript => Input(Assert.Single(Tasks(_pipeline.Stage("Apply"), "AzureCLI@2"), t => Scalar(Mapping(t, "inputs"), "inlineScript") is not null), "inlineScript");

    private string PlanScript => Input(Assert.Single(Tasks(_pipeline.Stage("Plan"), "AzureCLI@2")), "inlineScript");

    [Fact]
    public void Stages_RunBuildPlanApplyThenSmokeTest()
    {
        Assert.Equal(StageOrder, _pipeline.Stages.Select(s => Scalar(s, "stage")));
        Assert.Equal(["Build"], DependsOn(_pipeline.Stage("Plan")));
        Assert.Equal(["Plan"], DependsOn(_pipeline.Stage("Apply")));
        Assert.Equal(["Apply"], DependsOn(_pipeline.Stage("SmokeTest")));
        // Every change (template, key, app package) is in the one Apply stage: the privileged connection's checks are
        // asked once per run, when that stage starts.
        Assert.Equal(["Apply", "Deploy"], Jobs(_pipeline.Stage("Apply")).Select(j => Scalar(j, "deployment") ?? Scalar(j, "job")));
        Assert.Equal(["Apply"], DependsOn(Jobs(_pipeline.Stage("Apply"))[1]));
        // Pull requests stop after Build: nothing is planned or changed for one.
        Assert.All(StageOrder.Skip(1), s => Assert.Equal("and(succeeded(), ne(variables['Build.Reason'], 'PullRequest'))", Scalar(_pipeline.Stage(s), "condition")));
    }

    [Fact]
    public void Plan_RunsWhatIfPublishesAndShowsIt_AndChangesNothing()
    {
        var plan = _pipeline.Stage("Plan");

        Assert.DoesNotContain(Jobs(plan), j => Scalar(j, "deployment") is not null || j.Children.ContainsKey(new YamlScalarNode("environment")));
        Assert.Contains("az deployment group what-if", PlanScript, StringComparison.Ordinal);
        Assert.DoesNotContain("az deployment group create", PlanScript, StringComparison.Ordinal);
        Assert.DoesNotContain("az group create", PlanScript, StringComparison.Ordinal);
        Assert.Contains("| tee \"$plan/what-if.txt\"", PlanScript, StringComparison.Ordinal);
        Assert.Contains("##vso[task.uploadsummary]$plan/what-if.md", PlanScript, StringComparison.Ordinal);
        Assert.Contains("sha256sum main.json deployment.parameters*.json > plan.sha256", PlanScript, StringComparison.Ordinal);
        var publish = Assert.Single(Tasks(plan, "PublishPipelineArtifact@1"));
        Assert.Equal("plan", Input(publish, "artifact"));
        Assert.Equal("$(Build.ArtifactStagingDirectory)/plan", Input(publish, "targetPath"));
        Assert.Equal(["infra"], Downloads(plan));
    }

    [Fact]
    public void Approval_IsTheEnvironmentOfApply_TheOnlyDeploymentJob_AfterThePlan()
    {
        var deploymentJobs = _pipeline.Stages.SelectMany(s => Jobs(s).Select(j => (Stage: Scalar(s, "stage"), Job: j)))
            .Where(j => Scalar(j.Job, "deployment") is not null || j.Job.Children.ContainsKey(new YamlScalarNode("environment")))
            .ToList();

        // One approval per run: only Apply targets the environment, and later stages need Apply to have succeeded.
        var apply = Assert.Single(deploymentJobs);
        Assert.Equal("Apply", apply.Stage);
        Assert.Equal("widget-signing-${{ parameters.target }}", Scalar(apply.Job, "environment"));
        Assert.True(Array.IndexOf(StageOrder, "Plan") < Array.IndexOf(StageOrder, "Apply"));
    }

    [Fact]
    public void Apply_DeploysExactlyThePlannedTemplateAndParameters()
    {
        var script = ApplyScript;
        var check = script.IndexOf("sha256sum --check --strict plan.sha256", StringComparison.Ordinal);
        var create = script.IndexOf("az deployment group create", StringComparison.Ordinal);

        Assert.True(check >= 0 && create > check, "Apply must check the plan's checksums before it deploys");
        Assert.Equal(["plan", "app"], Downloads(_pipeline.Stage("Apply")));
        Assert.Contains("--template-file \"$plan/main.json\" --parameters \"@$plan/$2\"", script, StringComparison.Ordinal);
        Assert.Contains("deploy 1 deployment.parameters.json", script, StringComparison.Ordinal);
        Assert.Contains("deploy 2 deployment.parameters.key-granted.json", script, StringComparison.Ordinal);
        const string planned = "--template-file \"$plan/main.json\" --parameters \"@$plan/deployment.parameters.json\"";
        Assert.Equal(2, Regex.Matches(PlanScript, Regex.Escape(planned)).Count);
        Assert.Contains("sha256sum main.json deployment.parameters*.json > plan.sha256", PlanScript, StringComparison.Ordinal);
        Assert.Contains("set -euo pipefail", script, StringComparison.Ordinal);
        Assert.Equal("deployOutputs", Scalar(Assert.Single(Tasks(_pipeline.Stage("Apply"), "AzureCLI@2"), t => Scalar(Mapping(t, "inputs"), "inlineScript") is not null), "name"));
    }

    [Fact]
    public void Apply_CreatesTheSigningKeyBetweenTheTemplateAndTheKeyGrant()
    {
        var script = ApplyScript;
        var first = script.IndexOf("deploy 1 deployment.parameters.json", StringComparison.Ordinal);
        var bootstrap = script.IndexOf("infra/scripts/bootstrap-signing-key.sh", StringComparison.Ordinal);
        var grant = script.IndexOf("deploy 2 deployment.parameters.key-granted.json", StringComparison.Ordinal);

        Assert.True(first >= 0 && bootstrap > first && grant > bootstrap, "Apply: template, then the key, then the key grant");
        Assert.Contains("\"$(output keyVaultName)\" \"$(output signingSecretName)\"", script, StringComparison.Ordinal);
        var job = Jobs(_pipeline.Stage("Apply"))[0];
        Assert.Contains(Sequence(Mapping(Mapping(Mapping(job, "strategy"), "runOnce"), "deploy"), "steps").Cast<YamlMappingNode>(), s => Scalar(s, "checkout") == "self");
    }

    [Fact]
    public void Plan_BuildsItsParametersFromACompiledPlanFile_AndOnlyParametersMainDeclares()
    {
        var main = CompiledInfra.Instance;

        foreach (var file in CompiledInfra.ParameterFileNames)
        {
            Assert.Contains($"plan_parameters=\"{Path.GetFileNameWithoutExtension(file)}.parameters.json\"", PlanScript, StringComparison.Ordinal);
        }

        var overridden = Regex.Matches(PlanScript, @"\(""(\w+)"", ""[A-Z_]+""\)").Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(["environmentName", "location", "app", "planSku", "packagePublisherPrincipalId", "smokeTestPrincipalId", "authClientId"], overridden);
        Assert.True(main.Parameters.ContainsKey("signingKeyExists"));
        Assert.All(overridden, p => Assert.True(main.Parameters.ContainsKey(p), $"main.bicep has no parameter '{p}'"));
    }

    [Fact]
    public void Bicep_IsCompiledOnlyInBuild_ByThePinnedCompiler()
    {
        var build = _pipeline.Stage("Build");

        Assert.Equal(".ci/bicep \"$(Build.ArtifactStagingDirectory)/infra\"", Assert.Single(Scripts(build), s => s.Contains("bicep", StringComparison.Ordinal)));
        Assert.Contains(Tasks(build, "PublishPipelineArtifact@1"), t => Input(t, "artifact") == "infra");
        Assert.DoesNotContain("az bicep", Yaml, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"bicep (build|lint|install)", Yaml);
        Assert.DoesNotMatch(@"--template-file\s+\S*\.bicep", Yaml);
        // .ci/bicep takes the compiler from tools/Bicep/Bicep.proj, at the version the tests compile with.
        var ciBicep = RepoFiles.ReadAllText(".ci", "bicep");
        Assert.Contains("dotnet build tools/Bicep/Bicep.proj", ciBicep, StringComparison.Ordinal);
        Assert.Contains("-getProperty:BicepCliPath", ciBicep, StringComparison.Ordinal);
        Assert.Contains("<PackageDownload Include=\"Azure.Bicep.CommandLine.linux-x64\" Version=\"[$(BicepCliVersion)]\" />", RepoFiles.ReadAllText("tools", "Bicep", "Bicep.proj"), StringComparison.Ordinal);
        Assert.Contains($"<BicepCliVersion>{BicepCompiler.Version}</BicepCliVersion>", RepoFiles.ReadAllText("Directory.Packages.props"), StringComparison.Ordinal);
        Assert.Contains(".ci/bicep", RepoFiles.ReadAllText(".ci", "run"), StringComparison.Ordinal);
    }

    [Fact]
    public void Parameters_AreAllowListed_NoFreeTextEnvironmentConnectionOrResourceGroup()
    {
        var parameters = _pipeline.Parameters;

        // A free-text environment would let a run name a new environment, which Azure DevOps creates with no checks.
        Assert.Equal(["target", "location", "app", "planSku"], parameters.Keys);
        Assert.All(parameters.Values, p =>
        {
            Assert.Equal("string", Scalar(p, "type"));
            var values = Sequence(p, "values").Children.Cast<YamlScalarNode>().Select(v => v.Value!).ToList();
            Assert.NotEmpty(values);
            Assert.Contains(Scalar(p, "default"), values);
            Assert.False(string.IsNullOrWhiteSpace(Scalar(p, "displayName")));
        });
        Assert.Equal(["dev", "prod"], Sequence(parameters["target"], "values").Children.Cast<YamlScalarNode>().Select(v => v.Value!));
        // The plans some app may use (Y1 is refused for both by infra/, so the pipeline does not offer it).
        var planSku = parameters["planSku"];
        Assert.Equal(CompiledInfra.Instance.Allowed("planSku").Where(p => p != "Y1").Order(StringComparer.Ordinal), Sequence(planSku, "values").Children.Cast<YamlScalarNode>().Select(v => v.Value!).Order(StringComparer.Ordinal));
        Assert.Equal((string?)CompiledInfra.Instance.Parameters["planSku"]!["defaultValue"], Scalar(planSku, "default"));
        var app = parameters["app"];
        Assert.Equal(CompiledInfra.Instance.Allowed("app"), Sequence(app, "values").Children.Cast<YamlScalarNode>().Select(v => v.Value!));
        Assert.Equal((string?)CompiledInfra.Instance.Parameters["app"]!["defaultValue"], Scalar(app, "default"));
        // Environment, resource group and connections are derived from the allow-listed target, never typed in.
        Assert.DoesNotContain("${{ variables.", Yaml, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"parameters\.(environment|serviceConnection|resourceGroup)\b", Yaml);
        Assert.All(Regex.Matches(Yaml, @"RESOURCE_GROUP: (.+)").Select(m => m.Groups[1].Value), v => Assert.Equal("rg-widget-signing-${{ parameters.target }}", v));
    }

    [Fact]
    public void ServiceConnections_PlanIsReadOnly_ChangesUseTheDeployConnection_SmokeItsOwn()
    {
        var azureTasks = _pipeline.Stages.SelectMany(s => Steps(s).Select(t => (Stage: Scalar(s, "stage")!, Task: t)))
            .Where(x => Scalar(x.Task, "task") is "AzureCLI@2" or "AzureFunctionApp@2").ToList();

        Assert.Equal(4, azureTasks.Count);
        Assert.Equal(
            ["Plan widget-signing-${{ parameters.target }}-plan", "Apply widget-signing-${{ parameters.target }}-deploy", "Apply widget-signing-${{ parameters.target }}-deploy", "SmokeTest widget-signing-${{ parameters.target }}-smoke"],
            azureTasks.Select(x => $"{x.Stage} {Input(x.Task, "azureSubscription")}"));
        // The plan connection only reads: no deployment, group or role change in its script.
        Assert.DoesNotMatch(@"az (deployment group create|group create|resource create|role assignment|storage)", PlanScript);
    }

    [Fact]
    public void BuildConfiguration_IsOneVariable_UsedByBuildTestAndPublish()
    {
        var dotnet = Scripts(_pipeline.Stage("Build")).Where(s => Regex.IsMatch(s, "^dotnet (build|test|publish) ")).ToList();

        Assert.Equal(4, dotnet.Count);
        Assert.All(dotnet, s => Assert.Contains("--configuration $(buildConfiguration)", s, StringComparison.Ordinal));
        Assert.DoesNotMatch(@"(-c|--configuration) (Release|Debug)", Yaml);
        Assert.Equal("Release", _pipeline.Variables["buildConfiguration"]);
    }

    [Fact]
    public void Build_TestStep_RunsTheReadmeTestCommand()
    {
        var readme = ReadmeTestCommand.Read();

        var script = Assert.Single(Scripts(_pipeline.Stage("Build")), s => s.StartsWith("dotnet test", StringComparison.Ordinal))
            .Replace("$(buildConfiguration)", _pipeline.Variables["buildConfiguration"], StringComparison.Ordinal);

        Assert.StartsWith(readme + " ", script + " ", StringComparison.Ordinal);
        Assert.Contains("--logger trx", script, StringComparison.Ordinal);
        Assert.Equal("succeededOrFailed()", Scalar(Assert.Single(Tasks(_pipeline.Stage("Build"), "PublishTestResults@2")), "condition"));
    }

    [Fact]
    public void Build_PublishesBothAppsWithDotnetPublish_AsZipsInTheAppArtifact()
    {
        var build = _pipeline.Stage("Build");

        Assert.Contains(Scripts(build), s => s.StartsWith("dotnet publish FunctionApp.Isolated/FunctionApp.Isolated.csproj --configuration $(buildConfiguration) --output $(Build.ArtifactStagingDirectory)/publish-isolated", StringComparison.Ordinal));
        Assert.Contains(Scripts(build), s => s.StartsWith("dotnet publish FunctionApp/FunctionApp.csproj --configuration $(buildConfiguration) --output $(Build.ArtifactStagingDirectory)/publish", StringComparison.Ordinal));
        var zips = Tasks(build, "ArchiveFiles@2").ToList();
        Assert.Equal(2, zips.Count);
        Assert.All(zips, z =>
        {
            Assert.Equal("zip", Input(z, "archiveType"));
            Assert.Equal("false", Input(z, "includeRootFolder"));
        });
        Assert.Contains(zips, z => Input(z, "rootFolderOrFile") == "$(Build.ArtifactStagingDirectory)/publish-isolated" && Input(z, "archiveFile") == "$(Build.ArtifactStagingDirectory)/app/FunctionApp.Isolated.zip");
        Assert.Contains(zips, z => Input(z, "rootFolderOrFile") == "$(Build.ArtifactStagingDirectory)/publish" && Input(z, "archiveFile") == "$(Build.ArtifactStagingDirectory)/app/FunctionApp.zip");
        Assert.Contains(Tasks(build, "PublishPipelineArtifact@1"), t => Input(t, "artifact") == "app");
    }

    [Fact]
    public void LaterJobs_TakeResourceNamesFromApplysOutputs_WhichMainHas()
    {
        foreach (var name in ExportedOutputs)
        {
            Assert.NotNull(CompiledInfra.Instance.Main["outputs"]![name]);
        }

        Assert.Contains($"for name in {string.Join(' ', ExportedOutputs)}; do", ApplyScript, StringComparison.Ordinal);
        var deploy = Mapping(Jobs(_pipeline.Stage("Apply"))[1], "variables");
        var smoke = Mapping(_pipeline.Stage("SmokeTest"), "variables");
        foreach (var (variables, prefix) in new[] { (deploy, "dependencies.Apply"), (smoke, "stageDependencies.Apply.Apply") })
        {
            Assert.NotEmpty(variables.Children);
            foreach (var (key, value) in variables.Children.Select(c => (((YamlScalarNode)c.Key).Value!, ((YamlScalarNode)c.Value).Value!)))
            {
                Assert.Contains(key, ExportedOutputs);
                Assert.Equal($"$[ {prefix}.outputs['Apply.deployOutputs.{key}'] ]", value);
            }
        }
    }

    [Fact]
    public void Deploy_DeploysTheAppApplyDeployed_WithTheDeployConnection()
    {
        var task = Assert.Single(Tasks(_pipeline.Stage("Apply"), "AzureCLI@2"), t => Scalar(Mapping(t, "inputs"), "scriptPath") is not null);

        Assert.Equal("widget-signing-${{ parameters.target }}-deploy", Input(task, "azureSubscription"));
        Assert.Equal("infra/scripts/deploy-app.sh", Input(task, "scriptPath"));
        Assert.Equal("$(app) rg-widget-signing-${{ parameters.target }} $(functionAppName) $(deploymentStorageAccountName) $(packageContainerName) $(Pipeline.Workspace)/app", Input(task, "arguments"));
        // Flex takes its package through one deploy (config-zip), never WEBSITE_RUN_FROM_PACKAGE or a blob upload.
        var flex = RepoFiles.ReadAllText("infra", "scripts", "deploy-flex-package.sh");
        Assert.Contains("az functionapp deployment source config-zip --resource-group \"$resource_group\" --name \"$app_name\"", flex, StringComparison.Ordinal);
        Assert.DoesNotContain("WEBSITE_RUN_FROM_PACKAGE=", flex, StringComparison.Ordinal);
        Assert.DoesNotContain("az storage", flex, StringComparison.Ordinal);
        Assert.Contains("cli_minimum=\"${AZ_CLI_MINIMUM:-2.77.0}\"", flex, StringComparison.Ordinal);
        Assert.Contains("2.77.0", RepoFiles.ReadAllText("docs", "deploy.md"), StringComparison.Ordinal);
        var script = RepoFiles.ReadAllText("infra", "scripts", "deploy-package.sh");
        Assert.Contains("az storage blob upload --auth-mode login", script, StringComparison.Ordinal);
        Assert.DoesNotContain("--account-key", script, StringComparison.Ordinal);
        Assert.DoesNotContain("--connection-string", script, StringComparison.Ordinal);
        Assert.Contains("--action syncfunctiontriggers", script, StringComparison.Ordinal);
        // The blob the template points WEBSITE_RUN_FROM_PACKAGE at.
        Assert.Contains("FunctionApp.zip", (string?)CompiledInfra.Template(CompiledInfra.Instance.Module("storage"))["outputs"]!["packageBlobUrl"]!["value"], StringComparison.Ordinal);
        Assert.Contains("--name FunctionApp.zip", script, StringComparison.Ordinal);
    }

    [Fact]
    public void SmokeTest_SignsVerifiesTampersAndRoundTripsTheQueue_AgainstTheDeployedHost()
    {
        var task = Assert.Single(Tasks(_pipeline.Stage("SmokeTest"), "AzureCLI@2"));

        Assert.Equal("infra/scripts/smoke-test.sh", Input(task, "scriptPath"));
        const string vectors = "FunctionApp.Tests/TestData/vectors";
        Assert.Equal($"https://$(functionAppHostName) rg-widget-signing-${{{{ parameters.target }}}} $(functionAppName) {vectors} $(dataStorageAccountName) $(inputQueueName) $(outputQueueName) $(authClientId_${{{{ parameters.target }}}})", Input(task, "arguments"));
        Assert.True(Directory.Exists(RepoFiles.File(vectors, "one-widget")), $"{vectors}/one-widget is missing");
        var script = RepoFiles.ReadAllText("infra", "scripts", "smoke-test.sh");
        Assert.Contains("call /api/verify \"$work/tampered.json\"", script, StringComparison.Ordinal);
        Assert.Contains("az storage message put --auth-mode login", script, StringComparison.Ordinal);
        Assert.Contains("az storage message peek --auth-mode login", script, StringComparison.Ordinal);
    }

    [Fact]
    public void NoStep_ReadsPrintsOrDownloadsTheSigningKey_OrGrantsItselfAKeyVaultRole()
    {
        var shell = _pipeline.Stages.SelectMany(Shell).ToList();
        // Commands that run, not messages or comments.
        var commands = shell.SelectMany(s => s.Split('\n')).Select(l => l.Trim())
            .Where(l => l.Length > 0 && !l.StartsWith('#') && !l.StartsWith("echo ", StringComparison.Ordinal)).ToList();

        // Build's seven scripts (two publishes), Plan's and Apply's inline scripts (Apply runs the bootstrap script), the
        // deploy and smoke scripts.
        Assert.Equal(11, shell.Count);
        Assert.Contains(shell, s => s.Contains("infra/scripts/bootstrap-signing-key.sh", StringComparison.Ordinal));
        Assert.DoesNotContain(commands, l => l.Contains("az keyvault", StringComparison.Ordinal));
        Assert.DoesNotContain(commands, l => l.Contains("--query value", StringComparison.Ordinal));
        Assert.DoesNotContain(commands, l => l.Contains("role assignment", StringComparison.Ordinal));
        Assert.DoesNotContain(commands, l => l.Contains("set -x", StringComparison.Ordinal));
        Assert.DoesNotContain(commands, l => l.Contains("--debug", StringComparison.Ordinal));
        // The pipeline's principals get storage grants only (RoleAssignmentTests), never a Key Vault role; nor does the
        // optional audit reader (Storage Blob Data Reader on the audit container, AuditTrailInfraTests).
        Assert.Equal(["packagePublisherPrincipalId", "smokeTestPrincipalId", "auditReaderPrincipalId"], CompiledInfra.Instance.Parameters.Select(p => p.Key).Where(k => k.Contains("Principal", StringComparison.Ordinal)));
    }

    [Fact]
    public void Downloads_NameTheirArtifact()
    {
        var downloads = _pipeline.Stages.SelectMany(Steps).Where(s => Scalar(s, "download") is not null).ToList();

        Assert.NotEmpty(downloads);
        Assert.All(downloads, d => Assert.False(string.IsNullOrEmpty(Scalar(d, "artifact")), "a download step without 'artifact' fetches every artifact"));
    }

    [Fact]
    public void Pipeline_HasNoPrTrigger_ThatAzureReposWouldIgnore()
    {
        Assert.False(_pipeline.Root.Children.ContainsKey(new YamlScalarNode("pr")));
        Assert.Contains("build-validation branch policy", Yaml, StringComparison.Ordinal);
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
        Assert.DoesNotContain("azure-functions-core-tools", Yaml, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("azure-functions-core-tools", RepoFiles.ReadAllText(".ci", "run"), StringComparison.OrdinalIgnoreCase);
        // package.json may carry Core Tools only as an optional dependency (npm ci succeeds where their download
        // fails, Tooling/NpmCiTests), so nothing in CI depends on them.
        using var package = System.Text.Json.JsonDocument.Parse(RepoFiles.ReadAllText("package.json"));
        foreach (var section in new[] { "dependencies", "devDependencies" })
        {
            Assert.False(
                package.RootElement.TryGetProperty(section, out var dependencies) && dependencies.TryGetProperty("azure-functions-core-tools", out _),
                $"package.json lists azure-functions-core-tools under {section}; only optionalDependencies may.");
        }
    }

    private static List<string> Downloads(YamlMappingNode stage) =>
        Steps(stage).Where(s => Scalar(s, "download") is not null).Select(s => Scalar(s, "artifact") ?? "*").ToList();
}
