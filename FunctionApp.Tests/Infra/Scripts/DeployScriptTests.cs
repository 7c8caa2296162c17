namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/deploy-app.sh and deploy-flex-package.sh against a fake az that records its calls: the isolated app goes
/// to Flex Consumption by one deploy (az functionapp deployment source config-zip) with a pinned minimum Azure CLI, retried
/// only while the app's grant on its deployment container propagates; the in-process app keeps its package blob.
/// </summary>
public sealed class DeployScriptTests : IDisposable
{
    private readonly FakeAzureCli _az = new();
    private readonly string _artifacts = Directory.CreateTempSubdirectory("deploy-artifacts-").FullName;

    public DeployScriptTests()
    {
        File.WriteAllText(Path.Combine(_artifacts, "FunctionApp.Isolated.zip"), "isolated");
        File.WriteAllText(Path.Combine(_artifacts, "FunctionApp.zip"), "in-process");
    }

    [Fact]
    public async Task DeployApp_Isolated_PublishesTheIsolatedZipToFlexByConfigZip_AndNothingElse()
    {
        // Arrange
        var environment = _az.Environment(("DEPLOY_RETRY_SECONDS", "0"));

        // Act
        var run = await ScriptRun.RunAsync("deploy-app.sh", environment, "isolated", "rg-test", "func-x", "stpx", "function-releases", _artifacts);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(
            ["version --query \"azure-cli\" --output tsv", $"functionapp deployment source config-zip --resource-group rg-test --name func-x --src {_artifacts}/FunctionApp.Isolated.zip --output none"],
            _az.Calls);
        Assert.Contains("Azure CLI 2.77.0 (at least 2.77.0)", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("storage", StringComparison.Ordinal) || c.Contains("WEBSITE_RUN_FROM_PACKAGE", StringComparison.Ordinal) || c.StartsWith("functionapp config appsettings", StringComparison.Ordinal));
    }

    [Fact]
    public async Task DeployFlexPackage_CliOlderThanThePinnedMinimum_StopsBeforePublishing()
    {
        // Arrange
        var environment = _az.Environment(("FAKE_AZ_VERSION", "2.59.0"));

        // Act
        var run = await ScriptRun.RunAsync("deploy-flex-package.sh", environment, "rg-test", "func-x", Path.Combine(_artifacts, "FunctionApp.Isolated.zip"));

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("Azure CLI 2.59.0 is older than 2.77.0", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("functionapp deployment", StringComparison.Ordinal));
    }

    [Fact]
    public async Task DeployFlexPackage_GrantNotYetPropagated_RetriesUntilThePublishIsAccepted()
    {
        // Arrange
        var environment = _az.Environment(("FAKE_AZ_PUBLISH_FROM_CALL", "3"), ("DEPLOY_RETRY_SECONDS", "0"));

        // Act
        var run = await ScriptRun.RunAsync("deploy-flex-package.sh", environment, "rg-test", "func-x", Path.Combine(_artifacts, "FunctionApp.Isolated.zip"));

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(3, _az.Calls.Count(c => c.StartsWith("functionapp deployment source config-zip", StringComparison.Ordinal)));
        Assert.Contains("Attempt 2 of 20", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task DeployFlexPackage_OtherFailure_StopsAtOnceWithTheCliMessage()
    {
        // Arrange
        var environment = _az.Environment(("FAKE_AZ_PUBLISH", "error"), ("DEPLOY_RETRY_SECONDS", "0"));

        // Act
        var run = await ScriptRun.RunAsync("deploy-flex-package.sh", environment, "rg-test", "func-x", Path.Combine(_artifacts, "FunctionApp.Isolated.zip"));

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Single(_az.Calls, c => c.StartsWith("functionapp deployment", StringComparison.Ordinal));
        Assert.Contains("Could not deploy the package to 'func-x'", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task DeployApp_InProcess_UploadsFunctionAppZipToTheDeploymentAccount_RestartsAndSyncs()
    {
        // Arrange
        var environment = _az.Environment();

        // Act
        var run = await ScriptRun.RunAsync("deploy-app.sh", environment, "inprocess", "rg-test", "func-x", "stpx", "function-releases", _artifacts);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(3, _az.Calls.Count);
        Assert.Equal($"storage blob upload --auth-mode login --account-name stpx --container-name function-releases --name FunctionApp.zip --file {_artifacts}/FunctionApp.zip --overwrite --output none", _az.Calls[0]);
        Assert.StartsWith("functionapp restart --resource-group rg-test --name func-x", _az.Calls[1], StringComparison.Ordinal);
        Assert.Contains("--action syncfunctiontriggers", _az.Calls[2], StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("functionapp deployment", StringComparison.Ordinal));
    }

    [Fact]
    public async Task DeployApp_UnknownApp_IsRefused()
    {
        // Act
        var run = await ScriptRun.RunAsync("deploy-app.sh", _az.Environment(), "both", "rg-test", "func-x", "stpx", "function-releases", _artifacts);

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("unknown app 'both'", run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    public void Dispose()
    {
        _az.Dispose();
        Directory.Delete(_artifacts, recursive: true);
    }
}
