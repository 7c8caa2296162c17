using System.Diagnostics;
using System.Text.Json.Nodes;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.Infra.Scripts;
using static FunctionApp.Tests.Delivery.PipelineDocument;

namespace FunctionApp.Tests.Delivery;

/// <summary>
/// The Plan and Apply stages' inline scripts, taken from azure-pipelines.yml and run with bash against a fake az and
/// the compiled infra/: Plan writes a checksummed plan with this run's values (and, while the signing key is missing,
/// the key-grant deployment that follows the key bootstrap), Apply deploys exactly those files, and a plan changed
/// after it was reviewed stops Apply before anything is deployed.
/// </summary>
public sealed class PipelineScriptTests : IDisposable
{
    private const string DeployPrincipal = "11111111-2222-3333-4444-555555555555";
    private const string SmokePrincipal = "66666666-7777-8888-9999-000000000000";
    private const string AuthClientId = "7a1e0000-0000-4000-8000-000000000002";

    private const string FakeAz = """
        #!/usr/bin/env bash
        # Fake az: records calls; the resource group exists when FAKE_GROUP_EXISTS=true, its vaults are FAKE_VAULTS,
        # and the signing-key secret exists when FAKE_KEY_EXISTS=true (the audit seal key: FAKE_AUDIT_KEY_EXISTS, by
        # default the same). Its data accounts are FAKE_DATA_ACCOUNTS; the audit container's policy is in state
        # FAKE_AUDIT_POLICY_STATE (default Unlocked); the deployment's auditPolicyLocked output is FAKE_AUDIT_LOCK.
        echo "$*" >> "$FAKE_DIR/calls.log"
        case "$1 $2" in
          "group exists") echo "${FAKE_GROUP_EXISTS:-false}"; exit 0 ;;
          "group create") exit 0 ;;
          "resource list")
            if [[ "$*" == *"Microsoft.Storage/storageAccounts"* ]]; then echo "${FAKE_DATA_ACCOUNTS:-}"; exit 0; fi
            echo "${FAKE_VAULTS:-}"; exit 0 ;;
          "resource show")
            if [[ "$*" == *"--resource-type immutabilityPolicies"* ]]; then echo "${FAKE_AUDIT_POLICY_STATE:-Unlocked}"; exit 0; fi
            exists="${FAKE_KEY_EXISTS:-false}"
            if [[ "$*" == *"--name audit-signing-key"* ]]; then exists="${FAKE_AUDIT_KEY_EXISTS:-$exists}"; fi
            if [[ "$exists" == "true" ]]; then echo "/subscriptions/s/resourceGroups/rg-test/providers/Microsoft.KeyVault/vaults/kv-x/secrets/widget-signing-key"; exit 0; fi
            echo "ERROR: (ResourceNotFound) The Resource 'Microsoft.KeyVault/vaults/kv-x/secrets/widget-signing-key' under resource group 'rg-test' was not found." >&2; exit 3 ;;
          "resource create") exit 0 ;;
          "storage container")
            # Apply's lock script (the Plan reads the policy through az resource show).
            case "$4" in
              show)
                echo "{\"etag\":\"\\\"8dcafe\\\"\",\"state\":\"${FAKE_AUDIT_POLICY_STATE:-Unlocked}\",\"immutabilityPeriodSinceCreationInDays\":365,\"allowProtectedAppendWrites\":true}"; exit 0 ;;
              lock) echo "Locked"; exit 0 ;;
            esac ;;
        esac
        case "$1 $2 $3" in
          "deployment group what-if") echo "Resource changes: 14 to create."; exit 0 ;;
          "deployment group create")
            echo '{"app":{"value":"isolated"},"deploymentStorageAccountName":{"value":"stpx"},"functionAppName":{"value":"func-x"},"functionAppHostName":{"value":"func-x.azurewebsites.net"},"keyVaultName":{"value":"kv-x"},"signingSecretName":{"value":"widget-signing-key"},"auditSigningSecretName":{"value":"audit-signing-key"},"auditContainerName":{"value":"widget-audit"},"auditRetentionDays":{"value":365},"auditPolicyLocked":{"value":'"${FAKE_AUDIT_LOCK:-true}"'},"hostStorageAccountName":{"value":"sthx"},"packageContainerName":{"value":"function-releases"},"dataStorageAccountName":{"value":"stdx"},"inputQueueName":{"value":"widget-envelopes"},"outputQueueName":{"value":"widget-signatures"}}'
            exit 0 ;;
        esac
        echo "fake az: unexpected command: $*" >&2
        exit 2
        """;

    private readonly DirectoryInfo _root = Directory.CreateTempSubdirectory("pipeline-scripts-");
    private readonly PipelineDocument _pipeline = PipelineDocument.Load();

    public PipelineScriptTests()
    {
        var bin = _root.CreateSubdirectory("bin");
        File.WriteAllText(Path.Combine(bin.FullName, "az"), FakeAz.Replace("\r\n", "\n", StringComparison.Ordinal) + "\n");
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(Path.Combine(bin.FullName, "az"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }

        // The Build stage's infra artifact, as the plan job downloads it: what the pinned compiler produced.
        var infra = Directory.CreateDirectory(Path.Combine(_root.FullName, "workspace", "infra")).FullName;
        File.WriteAllText(Path.Combine(infra, "main.json"), CompiledInfra.Instance.Main.ToJsonString());
        foreach (var (file, parameters) in CompiledInfra.Instance.ParameterFiles)
        {
            File.WriteAllText(Path.Combine(infra, Path.GetFileNameWithoutExtension(file) + ".parameters.json"), parameters.ToJsonString());
        }
    }

    private string Workspace => Path.Combine(_root.FullName, "workspace");

    private string Staging => Path.Combine(_root.FullName, "staging");

    private string PlanFolder => Path.Combine(Staging, "plan");

    private IReadOnlyList<string> Calls =>
        File.Exists(Path.Combine(_root.FullName, "calls.log")) ? File.ReadAllLines(Path.Combine(_root.FullName, "calls.log")) : [];

    [Fact]
    public async Task Plan_NewResourceGroup_WritesAChecksummedPlanWithThisRunsValues_AndChangesNothing()
    {
        var run = await RunStageAsync("Plan", ("APP", "inprocess"), ("PLAN_SKU", "EP2"));

        Assert.True(run.ExitCode == 0, run.Error);
        var parameters = Parameters("deployment.parameters.json");
        Assert.Equal("EP2", (string?)parameters["planSku"]!["value"]);
        Assert.Equal("inprocess", (string?)parameters["app"]!["value"]);
        Assert.Equal(20, (int)parameters["maximumElasticWorkerCount"]!["value"]!); // from the Elastic Premium file
        Assert.Equal("prod", (string?)parameters["environmentName"]!["value"]);
        Assert.Equal("northeurope", (string?)parameters["location"]!["value"]);
        Assert.Equal(DeployPrincipal, (string?)parameters["packagePublisherPrincipalId"]!["value"]);
        Assert.Equal(SmokePrincipal, (string?)parameters["smokeTestPrincipalId"]!["value"]);
        Assert.Equal(AuthClientId, (string?)parameters["authClientId"]!["value"]);
        Assert.Equal("Standard_ZRS", (string?)parameters["storageSku"]!["value"]); // from the Elastic Premium file
        Assert.Equal(CompiledInfra.Instance.Main.ToJsonString(), File.ReadAllText(Path.Combine(PlanFolder, "main.json")));
        Assert.Contains("does not exist", File.ReadAllText(Path.Combine(PlanFolder, "what-if.txt")), StringComparison.Ordinal);
        Assert.Contains($"##vso[task.uploadsummary]{PlanFolder}/what-if.md", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(Calls, c => c.StartsWith("group create", StringComparison.Ordinal) || c.StartsWith("deployment group create", StringComparison.Ordinal) || c.StartsWith("resource create", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Plan_DefaultApp_UsesTheFlexConsumptionFileWithTheIsolatedApp()
    {
        var run = await RunStageAsync("Plan");

        Assert.True(run.ExitCode == 0, run.Error);
        var parameters = Parameters("deployment.parameters.json");
        Assert.Equal("isolated", (string?)parameters["app"]!["value"]);
        Assert.Equal("FC1", (string?)parameters["planSku"]!["value"]);
        Assert.Equal(2048, (int)parameters["instanceMemoryMB"]!["value"]!); // from the Flex Consumption file
        Assert.Contains("app isolated on plan FC1", File.ReadAllText(Path.Combine(PlanFolder, "what-if.txt")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Plan_SigningKeyMissing_PlansTheKeyGrantAsASecondChecksummedParametersFile()
    {
        var run = await RunStageAsync("Plan");

        Assert.True(run.ExitCode == 0, run.Error);
        var first = Parameters("deployment.parameters.json");
        var second = Parameters("deployment.parameters.key-granted.json");
        Assert.False((bool)first["signingKeyExists"]!["value"]!);
        Assert.False((bool)first["auditSigningKeyExists"]!["value"]!);
        Assert.True((bool)second["signingKeyExists"]!["value"]!);
        Assert.True((bool)second["auditSigningKeyExists"]!["value"]!);
        // The second file differs from the first only in signingKeyExists and auditSigningKeyExists.
        second["signingKeyExists"] = JsonNode.Parse("""{"value":false}""");
        second["auditSigningKeyExists"] = JsonNode.Parse("""{"value":false}""");
        Assert.Equal(first.ToJsonString(), second.ToJsonString());
        var sums = File.ReadAllText(Path.Combine(PlanFolder, "plan.sha256"));
        Assert.Contains("deployment.parameters.key-granted.json", sums, StringComparison.Ordinal);
        Assert.Contains("signingKeyExists=true", File.ReadAllText(Path.Combine(PlanFolder, "what-if.txt")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Plan_SigningKeyExists_PlansOneDeploymentWithTheGrant()
    {
        var run = await RunStageAsync("Plan", ("FAKE_GROUP_EXISTS", "true"), ("FAKE_VAULTS", "kv-x"), ("FAKE_KEY_EXISTS", "true"));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.True((bool)Parameters("deployment.parameters.json")["signingKeyExists"]!["value"]!);
        Assert.False(File.Exists(Path.Combine(PlanFolder, "deployment.parameters.key-granted.json")));
        // Looked up through Resource Manager metadata only.
        Assert.Contains(Calls, c => c.StartsWith("resource show", StringComparison.Ordinal) && c.Contains("--parent vaults/kv-x --resource-type secrets --name widget-signing-key", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("DEPLOY_PRINCIPAL_ID", "deployPrincipalId_prod")]
    [InlineData("SMOKE_PRINCIPAL_ID", "smokePrincipalId_prod")]
    [InlineData("AUTH_CLIENT_ID", "authClientId_prod")]
    public async Task Plan_PrincipalIdNotSetUp_FailsNamingTheVariable(string variable, string name)
    {
        var run = await RunStageAsync("Plan", (variable, string.Empty));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains($"Set {name}", run.Error, StringComparison.Ordinal);
        Assert.False(File.Exists(Path.Combine(PlanFolder, "plan.sha256")));
    }

    [Fact]
    public async Task Plan_ExistingResourceGroup_RunsWhatIfOnThePlannedFiles()
    {
        var run = await RunStageAsync("Plan", ("FAKE_GROUP_EXISTS", "true"));

        Assert.True(run.ExitCode == 0, run.Error);
        var whatIf = Calls.Where(c => c.StartsWith("deployment group what-if", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, whatIf.Count);
        Assert.All(whatIf, c => Assert.Contains($"--template-file {PlanFolder}/main.json --parameters @{PlanFolder}/deployment.parameters.json", c, StringComparison.Ordinal));
        Assert.Contains("Resource changes: 14 to create.", File.ReadAllText(Path.Combine(PlanFolder, "what-if.txt")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Apply_FirstDeployment_DeploysThePlannedFiles_CreatesTheKey_ThenDeploysTheKeyGrant()
    {
        await RunStageAsync("Plan");
        MovePlanToWorkspace();

        var run = await RunStageAsync("Apply");

        Assert.True(run.ExitCode == 0, run.Error);
        var planned = Path.Combine(Workspace, "plan");
        var calls = Calls.ToList();
        var creates = calls.Select((c, i) => (c, i)).Where(x => x.c.StartsWith("deployment group create", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, creates.Count);
        Assert.Contains($"--template-file {planned}/main.json --parameters @{planned}/deployment.parameters.json", creates[0].c, StringComparison.Ordinal);
        Assert.Contains($"--template-file {planned}/main.json --parameters @{planned}/deployment.parameters.key-granted.json", creates[1].c, StringComparison.Ordinal);
        // The key bootstrap runs between the two: the grant's scope (the secret) exists when it is made.
        var keyCreate = calls.FindIndex(c => c.StartsWith("resource create", StringComparison.Ordinal) && c.Contains("--parent vaults/kv-x", StringComparison.Ordinal));
        Assert.True(keyCreate > creates[0].i && keyCreate < creates[1].i, string.Join('\n', calls));
        Assert.Contains("##vso[task.setvariable variable=keyVaultName;isOutput=true]kv-x", run.Output, StringComparison.Ordinal);
        Assert.Contains("##vso[task.setvariable variable=functionAppHostName;isOutput=true]func-x.azurewebsites.net", run.Output, StringComparison.Ordinal);
        Assert.Contains("##vso[task.setvariable variable=outputQueueName;isOutput=true]widget-signatures", run.Output, StringComparison.Ordinal);
        Assert.Contains("##vso[task.setvariable variable=app;isOutput=true]isolated", run.Output, StringComparison.Ordinal);
        Assert.Contains("##vso[task.setvariable variable=deploymentStorageAccountName;isOutput=true]stpx", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Apply_KeyAlreadyThere_DeploysThePlannedFilesOnce_AndLeavesTheKey()
    {
        await RunStageAsync("Plan", ("FAKE_GROUP_EXISTS", "true"), ("FAKE_VAULTS", "kv-x"), ("FAKE_KEY_EXISTS", "true"));
        MovePlanToWorkspace();

        var run = await RunStageAsync("Apply", ("FAKE_KEY_EXISTS", "true"));

        Assert.True(run.ExitCode == 0, run.Error);
        var create = Assert.Single(Calls, c => c.StartsWith("deployment group create", StringComparison.Ordinal));
        Assert.Contains("@" + Path.Combine(Workspace, "plan", "deployment.parameters.json"), create, StringComparison.Ordinal);
        Assert.DoesNotContain(Calls, c => c.StartsWith("resource create", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Apply_PlanChangedAfterReview_StopsBeforeDeploying()
    {
        await RunStageAsync("Plan");
        MovePlanToWorkspace();
        var parameters = Path.Combine(Workspace, "plan", "deployment.parameters.key-granted.json");
        File.WriteAllText(parameters, File.ReadAllText(parameters).Replace("\"FC1\"", "\"EP3\"", StringComparison.Ordinal));

        var run = await RunStageAsync("Apply");

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("deployment.parameters.key-granted.json: FAILED", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(Calls, c => c.StartsWith("deployment group create", StringComparison.Ordinal) || c.StartsWith("group create", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Plan_OnlyTheAuditKeyMissing_StillPlansTheKeyGrant()
    {
        var run = await RunStageAsync("Plan", ("FAKE_GROUP_EXISTS", "true"), ("FAKE_VAULTS", "kv-x"), ("FAKE_KEY_EXISTS", "true"), ("FAKE_AUDIT_KEY_EXISTS", "false"));

        Assert.True(run.ExitCode == 0, run.Error);
        var first = Parameters("deployment.parameters.json");
        Assert.True((bool)first["signingKeyExists"]!["value"]!);
        Assert.False((bool)first["auditSigningKeyExists"]!["value"]!);
        Assert.True((bool)Parameters("deployment.parameters.key-granted.json")["auditSigningKeyExists"]!["value"]!);
        Assert.Contains(Calls, c => c.StartsWith("resource show", StringComparison.Ordinal) && c.Contains("--parent vaults/kv-x --resource-type secrets --name audit-signing-key", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("prod", true)]
    [InlineData("dev", false)]
    public async Task Plan_AuditPolicyLock_IsProductionsFilesChoice_AndFalseForAnyOtherTarget(string target, bool locked)
    {
        var run = await RunStageAsync("Plan", ("ENVIRONMENT_NAME", target));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(locked, (bool)Parameters("deployment.parameters.json")["auditPolicyLocked"]!["value"]!);
        Assert.Equal(locked, (bool)Parameters("deployment.parameters.key-granted.json")["auditPolicyLocked"]!["value"]!);
    }

    [Theory]
    [InlineData("Locked", true)]
    [InlineData("Unlocked", false)]
    public async Task Plan_AuditPolicyLockedInAzure_IsLeftOutOfTheDeployment(string state, bool isLocked)
    {
        var run = await RunStageAsync("Plan", ("FAKE_GROUP_EXISTS", "true"), ("FAKE_DATA_ACCOUNTS", "stdx"), ("FAKE_AUDIT_POLICY_STATE", state));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(isLocked, (bool)Parameters("deployment.parameters.json")["auditPolicyIsLocked"]!["value"]!);
        // Through Resource Manager metadata, as the plan connection (Reader) may.
        Assert.Contains(Calls, c => c.StartsWith("resource show --resource-group rg-test --namespace Microsoft.Storage --parent storageAccounts/stdx/blobServices/default/containers/widget-audit --resource-type immutabilityPolicies --name default", StringComparison.Ordinal));
        Assert.DoesNotContain(Calls, c => c.StartsWith("storage ", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Apply_Production_CreatesTheAuditKeyBeforeTheKeyGrant_ThenLocksThePolicyAfterTheLastDeployment()
    {
        await RunStageAsync("Plan");
        MovePlanToWorkspace();

        var run = await RunStageAsync("Apply");

        Assert.True(run.ExitCode == 0, run.Error);
        var calls = Calls.ToList();
        var creates = calls.Select((c, i) => (c, i)).Where(x => x.c.StartsWith("deployment group create", StringComparison.Ordinal)).Select(x => x.i).ToList();
        var auditKey = calls.FindIndex(c => c.StartsWith("resource create", StringComparison.Ordinal) && c.Contains("--name audit-signing-key", StringComparison.Ordinal));
        var lockCall = calls.FindIndex(c => c.StartsWith("storage container immutability-policy lock", StringComparison.Ordinal));
        Assert.Equal(2, creates.Count);
        Assert.True(auditKey > creates[0] && auditKey < creates[1], string.Join('\n', calls));
        Assert.True(lockCall > creates[1], string.Join('\n', calls));
        Assert.Contains("--resource-group rg-test --account-name stdx --container-name widget-audit", calls[lockCall], StringComparison.Ordinal);
        Assert.Single(calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Apply_OtherTarget_NeverLocks_EvenIfTheDeploymentAsks()
    {
        await RunStageAsync("Plan", ("ENVIRONMENT_NAME", "dev"));
        MovePlanToWorkspace();

        var run = await RunStageAsync("Apply", ("ENVIRONMENT_NAME", "dev"), ("FAKE_AUDIT_LOCK", "true"));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.DoesNotContain(Calls, c => c.Contains("immutability-policy", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Apply_ProductionNotAskingForTheLock_LeavesThePolicyUnlocked()
    {
        await RunStageAsync("Plan");
        MovePlanToWorkspace();

        var run = await RunStageAsync("Apply", ("FAKE_AUDIT_LOCK", "false"));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.DoesNotContain(Calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal));
    }

    public void Dispose() => _root.Delete(recursive: true);

    private JsonNode Parameters(string file) => JsonNode.Parse(File.ReadAllText(Path.Combine(PlanFolder, file)))!["parameters"]!;

    private void MovePlanToWorkspace() => Directory.Move(PlanFolder, Path.Combine(Workspace, "plan"));

    private async Task<(int ExitCode, string Output, string Error)> RunStageAsync(string stage, params (string Name, string Value)[] settings)
    {
        var task = Assert.Single(Tasks(_pipeline.Stage(stage), "AzureCLI@2"), t => Scalar(Mapping(t, "inputs"), "inlineScript") is not null);
        // The agent's macros, as it expands them before the script runs.
        var script = Input(task, "inlineScript")
            .Replace("$(Pipeline.Workspace)", Workspace, StringComparison.Ordinal)
            .Replace("$(Build.ArtifactStagingDirectory)", Staging, StringComparison.Ordinal)
            .Replace("$(Agent.TempDirectory)", _root.FullName, StringComparison.Ordinal)
            .Replace("$(Build.BuildId)", "42", StringComparison.Ordinal)
            .Replace("$(Build.SourcesDirectory)", RepoFiles.Path, StringComparison.Ordinal);
        Assert.DoesNotContain("$(", script.Replace("$(az ", string.Empty, StringComparison.Ordinal).Replace("$(cd ", string.Empty, StringComparison.Ordinal).Replace("$(python3 ", string.Empty, StringComparison.Ordinal).Replace("$(output ", string.Empty, StringComparison.Ordinal), StringComparison.Ordinal);

        var start = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true, UseShellExecute = false };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add(script);
        start.Environment["PATH"] = $"{Path.Combine(_root.FullName, "bin")}:{Environment.GetEnvironmentVariable("PATH")}";
        start.Environment["FAKE_DIR"] = _root.FullName;
        // The step's env: block, with this test's values.
        start.Environment["RESOURCE_GROUP"] = "rg-test";
        start.Environment["LOCATION"] = "northeurope";
        start.Environment["PLAN_SKU"] = "FC1";
        start.Environment["APP"] = "isolated";
        start.Environment["ENVIRONMENT_NAME"] = "prod";
        start.Environment["DEPLOY_PRINCIPAL_ID"] = DeployPrincipal;
        start.Environment["SMOKE_PRINCIPAL_ID"] = SmokePrincipal;
        start.Environment["AUTH_CLIENT_ID"] = AuthClientId;
        foreach (var (name, value) in settings)
        {
            start.Environment[name] = value;
        }

        var run = await ScriptRun.RunAsync(start, stage);
        return (run.ExitCode, run.Output, run.Error);
    }
}
