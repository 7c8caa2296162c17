namespace FunctionApp.Tests.Tooling;

/// <summary>
/// <c>npm start</c> (scripts/start.mjs) with the real Azurite and a fake <c>func</c> or <c>dotnet</c>: func from
/// node_modules/.bin or the PATH, else the local host built and run on the build output; settings copied only when absent,
/// Azurite up with telemetry off while the host runs, nothing left running however it ends, a clear message without either.
/// </summary>
public sealed class StartScriptTests
{
    /// <summary>Where Azurite keeps its telemetry instance id, written only when telemetry is on (azurite/dist/src/common/Telemetry.js, GetInstanceID).</summary>
    private const string AzuriteTelemetryFile = "AzuriteConfig";

    [Fact]
    public async Task Start_NeitherFuncNorDotnet_SaysWhatToInstallAndLeavesNothingRunning()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("Neither Azure Functions Core Tools ('func') nor the .NET SDK ('dotnet') is available", run.Error, StringComparison.Ordinal);
        Assert.Contains("Install the .NET 8 SDK or later", run.Error, StringComparison.Ordinal);
        Assert.Null(run.AzuritePid);
        Assert.False(Directory.Exists(sandbox.AzuriteLocation), "Azurite ran although nothing can host the app");
        Assert.False(await sandbox.AnyPortListeningAsync());
        Assert.False(File.Exists(sandbox.Settings), "settings were written although nothing can run");
    }

    [Fact]
    public async Task Start_FuncNotInstalled_BuildsThenRunsTheLocalHostOnTheBuildOutputWithAzuriteUp()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(
            [
                "build FunctionApp/FunctionApp.csproj --configuration Release --nologo -v quiet",
                "build tools/LocalHost/LocalHost.csproj --configuration Release --nologo -v quiet",
            ],
            await File.ReadAllLinesAsync(sandbox.DotnetBuilds));
        var host = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(
            [
                Path.Combine(sandbox.Root, "tools", "LocalHost", "bin", "Release", "net8.0", "LocalHost.dll"),
                "--app", Path.Combine(sandbox.Root, "FunctionApp", "bin", "Release", "net8.0"),
                "--settings", sandbox.Settings,
                "--port", sandbox.HttpPort.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ],
            host.Args);
        Assert.True(host.AzuriteListening, $"Azurite was not listening when the local host started.\n{run.Output}\n{run.Error}");
        Assert.Contains($"QueueEndpoint=http://127.0.0.1:{sandbox.Ports[1]}/devstoreaccount1;", host.WidgetStorage, StringComparison.Ordinal);
        AssertAzuriteRanWithoutTelemetryAndStopped(sandbox, run);
        Assert.False(await sandbox.AnyPortListeningAsync());
    }

    [Fact]
    public async Task Start_LocalHostBuildFails_ExitsNonZeroWithoutStartingAzurite()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0", buildExitCode: 1);

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("dotnet build FunctionApp/FunctionApp.csproj failed", run.Error, StringComparison.Ordinal);
        Assert.Null(run.Func);
        Assert.Null(run.AzuritePid);
    }

    [Fact]
    public async Task Start_FuncInNodeModules_RunsItRatherThanTheLocalHost()
    {
        // Arrange: Core Tools as npm's optional dependency links them, and a dotnet that must not be used.
        await using var sandbox = StartScriptSandbox.Create(funcInNodeModules: true);
        sandbox.AddFakeDotnet("exit:9");
        sandbox.AddFakeFuncInNodeModules("exit:0");

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(0, run.ExitCode);
        var func = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(["start", "--port", sandbox.HttpPort.ToString(System.Globalization.CultureInfo.InvariantCulture)], func.Args);
        Assert.Equal(Path.Combine(sandbox.Root, "FunctionApp"), func.Cwd);
        Assert.False(File.Exists(sandbox.DotnetBuilds), "the local host was built although func is installed");
        AssertAzuriteRanWithoutTelemetryAndStopped(sandbox, run);
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

    [Fact]
    public async Task Start_AzuritePortAlreadyInUse_NamesThePortAndStartsNothing()
    {
        // Arrange: someone else listens on the queue port, which would otherwise pass for our Azurite.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        var squatter = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, sandbox.Ports[1]);
        squatter.Start();
        try
        {
            // Act
            var run = await sandbox.RunAsync();

            // Assert
            Assert.NotEqual(0, run.ExitCode);
            Assert.Contains($"Port {sandbox.Ports[1]} (queue) on 127.0.0.1 is already in use", run.Error, StringComparison.Ordinal);
            Assert.Contains("AZURITE_QUEUE_PORT", run.Error, StringComparison.Ordinal);
            Assert.Null(run.AzuritePid);
            Assert.Null(run.Func);
        }
        finally
        {
            squatter.Stop();
        }
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
        Assert.Equal(["start", "--port", sandbox.HttpPort.ToString(System.Globalization.CultureInfo.InvariantCulture)], func.Args);
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
