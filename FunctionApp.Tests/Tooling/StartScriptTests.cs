namespace FunctionApp.Tests.Tooling;

/// <summary>
/// <c>npm start</c> (scripts/start.mjs) with the real Azurite and a fake <c>func</c>: settings copied only when absent,
/// Azurite up with telemetry off while func runs, nothing left running however func ends, and a clear message without func.
/// </summary>
public sealed class StartScriptTests
{
    /// <summary>Where Azurite keeps its telemetry instance id, written only when telemetry is on (azurite/dist/src/common/Telemetry.js, GetInstanceID).</summary>
    private const string AzuriteTelemetryFile = "AzuriteConfig";

    [Fact]
    public async Task Start_FuncNotOnPath_SaysHowToInstallCoreToolsAndLeavesNothingRunning()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("Azure Functions Core Tools v4 ('func') is not on the PATH", run.Error, StringComparison.Ordinal);
        Assert.Contains("npm i -g azure-functions-core-tools@4", run.Error, StringComparison.Ordinal);
        Assert.Null(run.AzuritePid);
        Assert.False(Directory.Exists(sandbox.AzuriteLocation), "Azurite ran although func is missing");
        Assert.False(await sandbox.AnyPortListeningAsync());
        Assert.False(File.Exists(sandbox.Settings), "settings were written although nothing can run");
    }

    [Fact]
    public async Task Start_AzuriteNotInstalled_SaysRunNpmCiAndExitsNonZero()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create(withAzurite: false);
        sandbox.AddFakeFunc("exit:0");

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("Run 'npm ci' first", run.Error, StringComparison.Ordinal);
        Assert.Null(run.Func);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    public async Task Start_FuncExits_RanFuncStartInFunctionAppWithAzuriteUpThenStopsAzurite(int funcExitCode)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc($"exit:{funcExitCode}");

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(funcExitCode, run.ExitCode);
        var func = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(Path.Combine(sandbox.Root, "FunctionApp"), func.Cwd);
        Assert.Equal(["start"], func.Args);
        Assert.True(func.AzuriteListening, $"Azurite was not listening on {string.Join(", ", sandbox.Ports)} when func started.\n{run.Output}\n{run.Error}");
        AssertAzuriteRanWithoutTelemetryAndStopped(sandbox, run);
        Assert.False(await sandbox.AnyPortListeningAsync());
    }

    [Theory]
    [InlineData("SIGINT", 130)]
    [InlineData("SIGTERM", 143)]
    public async Task Start_Signal_StopsFuncThenAzurite(string signal, int expectedExitCode)
    {
        // Arrange: the fake func sends the signal to the script, as Ctrl-C or a service manager would.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc($"signal-parent:{signal}");

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(expectedExitCode, run.ExitCode);
        var func = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(signal, func.Signal);
        AssertAzuriteRanWithoutTelemetryAndStopped(sandbox, run);
        Assert.False(await sandbox.AnyPortListeningAsync());
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Start_Settings_CopiesTheSampleOnlyWhenAbsent(bool settingsExist)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        const string mine = """{ "IsEncrypted": false, "Values": { "mine": "kept" } }""";
        if (settingsExist)
        {
            await File.WriteAllTextAsync(sandbox.Settings, mine);
        }

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(0, run.ExitCode);
        var expected = settingsExist ? mine : await File.ReadAllTextAsync(sandbox.Sample);
        Assert.Equal(expected, await File.ReadAllTextAsync(sandbox.Settings));
    }

    private static void AssertAzuriteRanWithoutTelemetryAndStopped(StartScriptSandbox sandbox, StartScriptRun run)
    {
        var pid = Assert.IsType<int>(run.AzuritePid);
        Assert.False(StartScriptSandbox.IsRunning(pid), $"Azurite (pid {pid}) is still running after the script exited");
        Assert.True(File.Exists(Path.Combine(sandbox.AzuriteLocation, "__azurite_db_queue__.json")), $"Azurite kept no data in {sandbox.AzuriteLocation}");
        Assert.False(File.Exists(Path.Combine(sandbox.AzuriteLocation, AzuriteTelemetryFile)), "Azurite ran with telemetry on");
    }
}
