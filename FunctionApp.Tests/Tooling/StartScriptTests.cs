using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// <c>npm start</c> (scripts/start.mjs) with the real Azurite and a fake <c>func</c> or <c>dotnet</c>: by default the
/// isolated app (func in FunctionApp.Isolated/, else the app and tools/WorkerHost built and WorkerHost run on its output),
/// with <c>--inprocess</c> the in-process app (func in FunctionApp/, else tools/LocalHost); func from node_modules/.bin or
/// the PATH; settings copied only when absent, Azurite up with telemetry off while the host runs, nothing left running
/// however it ends, a clear message without either, a usage error for anything else on the command line.
/// </summary>
public sealed class StartScriptTests
{
    /// <summary>Where Azurite keeps its telemetry instance id, written only when telemetry is on (azurite/dist/src/common/Telemetry.js, GetInstanceID).</summary>
    private const string AzuriteTelemetryFile = "AzuriteConfig";

    private const string Usage = "usage: node scripts/start.mjs [--inprocess]";

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Start_NeitherFuncNorDotnet_NamesTheDotnet10SdkAndLeavesNothingRunning(bool inProcess)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();

        // Act
        var run = inProcess ? await sandbox.RunAsync("--inprocess") : await sandbox.RunAsync();

        // Assert
        Assert.Equal(127, run.ExitCode);
        Assert.Contains("Neither Azure Functions Core Tools ('func') nor the .NET SDK ('dotnet') is available", run.Error, StringComparison.Ordinal);
        Assert.Contains("Install the .NET 10 SDK (https://dot.net; global.json requires 10.0.100 or later)", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(".NET 8", run.Error, StringComparison.Ordinal);
        Assert.Contains(inProcess ? "(tools/LocalHost)" : "(tools/WorkerHost)", run.Error, StringComparison.Ordinal);
        Assert.Null(run.AzuritePid);
        Assert.False(Directory.Exists(sandbox.AzuriteLocation), "Azurite ran although nothing can host the app");
        Assert.False(await sandbox.AnyPortListeningAsync());
        Assert.False(File.Exists(sandbox.IsolatedSettings), "isolated settings were written although nothing can run");
        Assert.False(File.Exists(sandbox.InProcessSettings), "in-process settings were written although nothing can run");
    }

    [Fact]
    public async Task Start_FuncNotInstalled_BuildsTheIsolatedAppAndWorkerHostThenRunsWorkerHostOnItsOutputWithAzuriteUp()
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
                "build FunctionApp.Isolated/FunctionApp.Isolated.csproj --configuration Release --nologo -v quiet",
                "build tools/WorkerHost/WorkerHost.csproj --configuration Release --nologo -v quiet",
                "build tools/LocalIssuer/LocalIssuer.csproj --configuration Release --nologo -v quiet",
            ],
            await File.ReadAllLinesAsync(sandbox.DotnetBuilds));
        var host = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(
            [
                Path.Combine(sandbox.Root, "tools", "WorkerHost", "bin", "Release", "net10.0", "WorkerHost.dll"),
                "--app", Path.Combine(sandbox.Root, "FunctionApp.Isolated", "bin", "Release", "net10.0"),
                "--settings", sandbox.IsolatedSettings,
                "--port", sandbox.HttpPort.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ],
            host.Args);
        Assert.Equal(sandbox.Root, host.Cwd);
        Assert.Equal(await File.ReadAllTextAsync(sandbox.IsolatedSample), await File.ReadAllTextAsync(sandbox.IsolatedSettings));
        Assert.False(File.Exists(sandbox.InProcessSettings), "the in-process app's settings were written in the default (isolated) mode");
        Assert.True(host.AzuriteListening, $"Azurite was not listening when WorkerHost started.\n{run.Output}\n{run.Error}");
        Assert.Contains($"QueueEndpoint=http://127.0.0.1:{sandbox.Ports[1]}/devstoreaccount1;", host.WidgetStorage, StringComparison.Ordinal);
        Assert.Contains("WorkerHost exited (code 0)", run.Output, StringComparison.Ordinal);
        AssertAzuriteRanWithoutTelemetryAndStopped(sandbox, run);
        Assert.False(await sandbox.AnyPortListeningAsync());
    }

    [Fact]
    public async Task Start_InProcessFuncNotInstalled_BuildsThenRunsTheLocalHostOnTheBuildOutputWithAzuriteUp()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");

        // Act
        var run = await sandbox.RunAsync("--inprocess");

        // Assert
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(
            [
                "build FunctionApp/FunctionApp.csproj --configuration Release --nologo -v quiet",
                "build tools/LocalHost/LocalHost.csproj --configuration Release --nologo -v quiet",
                "build tools/LocalIssuer/LocalIssuer.csproj --configuration Release --nologo -v quiet",
            ],
            await File.ReadAllLinesAsync(sandbox.DotnetBuilds));
        var host = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(
            [
                Path.Combine(sandbox.Root, "tools", "LocalHost", "bin", "Release", "net8.0", "LocalHost.dll"),
                "--app", Path.Combine(sandbox.Root, "FunctionApp", "bin", "Release", "net8.0"),
                "--settings", sandbox.InProcessSettings,
                "--port", sandbox.HttpPort.ToString(System.Globalization.CultureInfo.InvariantCulture),
                "--platform-auth",
            ],
            host.Args);
        Assert.Equal(await File.ReadAllTextAsync(sandbox.InProcessSample), await File.ReadAllTextAsync(sandbox.InProcessSettings));
        Assert.False(File.Exists(sandbox.IsolatedSettings), "the isolated app's settings were written with --inprocess");
        Assert.True(host.AzuriteListening, $"Azurite was not listening when the local host started.\n{run.Output}\n{run.Error}");
        Assert.Contains($"QueueEndpoint=http://127.0.0.1:{sandbox.Ports[1]}/devstoreaccount1;", host.WidgetStorage, StringComparison.Ordinal);
        AssertAzuriteRanWithoutTelemetryAndStopped(sandbox, run);
        Assert.False(await sandbox.AnyPortListeningAsync());
    }

    [Theory]
    [InlineData(new string[0], "FunctionApp.Isolated/FunctionApp.Isolated.csproj", "tools/WorkerHost/WorkerHost.csproj")]
    [InlineData(new[] { "--inprocess" }, "FunctionApp/FunctionApp.csproj", "tools/LocalHost/LocalHost.csproj")]
    public async Task Start_FuncNotInstalled_PrintsALineBeforeAndAfterEachBuild(string[] arguments, string app, string host)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");

        // Act
        var run = await sandbox.RunAsync(arguments);

        // Assert: in order, each build announced before it runs and timed after it.
        Assert.Equal(0, run.ExitCode);
        var progress = run.Output.Split('\n', StringSplitOptions.TrimEntries)
            .Where(line => line.StartsWith("[npm start] Building ", StringComparison.Ordinal) || line.StartsWith("[npm start] Built ", StringComparison.Ordinal))
            .ToArray();
        Assert.Equal(6, progress.Length);
        Assert.Equal($"[npm start] Building {app} (dotnet build -c Release)...", progress[0]);
        Assert.Matches($@"^\[npm start\] Built {Regex.Escape(app)} in \d+\.\d s$", progress[1]);
        Assert.Equal($"[npm start] Building {host} (dotnet build -c Release)...", progress[2]);
        Assert.Matches($@"^\[npm start\] Built {Regex.Escape(host)} in \d+\.\d s$", progress[3]);
        Assert.Equal("[npm start] Building tools/LocalIssuer/LocalIssuer.csproj (dotnet build -c Release)...", progress[4]);
        Assert.Matches(@"^\[npm start\] Built tools/LocalIssuer/LocalIssuer\.csproj in \d+\.\d s$", progress[5]);
    }

    [Theory]
    [InlineData(new string[0], "FunctionApp.Isolated/FunctionApp.Isolated.csproj")]
    [InlineData(new[] { "--inprocess" }, "FunctionApp/FunctionApp.csproj")]
    public async Task Start_BuildFails_ShowsDotnetsErrorAndExitsNonZeroWithoutStartingAzurite(string[] arguments, string app)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0", buildExitCode: 1);

        // Act
        var run = await sandbox.RunAsync(arguments);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"[npm start] Building {app} (dotnet build -c Release)...", run.Output, StringComparison.Ordinal);
        Assert.Contains($"{app} : error CS0000: fake build failure", run.Output + run.Error, StringComparison.Ordinal);
        Assert.Contains($"dotnet build {app} failed", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("[npm start] Built ", run.Output, StringComparison.Ordinal);
        Assert.Equal([$"build {app} --configuration Release --nologo -v quiet"], await File.ReadAllLinesAsync(sandbox.DotnetBuilds));
        Assert.Null(run.Func);
        Assert.Null(run.AzuritePid);
    }

    [Fact]
    public async Task Start_NothingChangedSinceTheLastBuild_RunsTheBuiltOutputWithoutBuilding()
    {
        // Arrange: the real projects' files and a first run that builds them.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");
        WriteIsolatedProjectsAndOutputs(sandbox);
        var first = await sandbox.RunAsync();

        // Act
        var second = await sandbox.RunAsync();

        // Assert: three builds in all (the first run's), and the second run still started WorkerHost on the output.
        Assert.Equal(0, first.ExitCode);
        Assert.Equal(0, second.ExitCode);
        Assert.Equal(3, (await File.ReadAllLinesAsync(sandbox.DotnetBuilds)).Length);
        Assert.DoesNotContain("[npm start] Building ", second.Output, StringComparison.Ordinal);
        Assert.Contains("[npm start] Build output up to date", second.Output, StringComparison.Ordinal);
        var host = Assert.IsType<FakeFuncRecord>(second.Func);
        Assert.Equal(Path.Combine(sandbox.Root, "tools", "WorkerHost", "bin", "Release", "net10.0", "WorkerHost.dll"), host.Args[0]);
    }

    [Theory]
    [InlineData("edit", "WidgetSigning/Signing/EnvelopeSigner.cs", true)]
    [InlineData("add", "FunctionApp.Isolated/Functions/NewFunction.cs", true)]
    [InlineData("touch", "FunctionApp.Isolated/Program.cs", true)]
    [InlineData("touch", "tools/Shared/HostCommandLine.cs", true)]
    [InlineData("edit", "tools/WorkerHost/Program.cs", true)]
    [InlineData("edit", "Directory.Packages.props", true)]
    [InlineData("touch", "Directory.Build.props", true)]
    [InlineData("edit", "global.json", true)]
    [InlineData("delete", "tools/WorkerHost/bin/Release/net10.0/WorkerHost.dll", true)]
    [InlineData("touch", "FunctionApp.Isolated/bin/Release/net10.0/FunctionApp.Isolated.dll", true)]
    [InlineData("edit", "tools/LocalIssuer/Program.cs", true)]
    [InlineData("delete", "tools/LocalIssuer/bin/Release/net10.0/LocalIssuer.dll", true)]
    [InlineData("edit", "docs/api.md", false)]
    [InlineData("add", "FunctionApp.Isolated/obj/Release/generated.cs", false)]
    public async Task Start_FileChangedSinceTheLastBuild_BuildsAgainOnlyWhenItIsABuildInputOrOutput(string change, string file, bool rebuilds)
    {
        // Arrange: a first run that builds, then one change.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");
        WriteIsolatedProjectsAndOutputs(sandbox);
        Assert.Equal(0, (await sandbox.RunAsync()).ExitCode);
        var path = Path.Combine([sandbox.Root, .. file.Split('/')]);
        switch (change)
        {
            case "edit":
                await File.AppendAllTextAsync(path, "\n");
                File.SetLastWriteTimeUtc(path, File.GetLastWriteTimeUtc(path).AddSeconds(5));
                break;
            case "add":
                Write(sandbox, file, "// new");
                break;
            case "touch":
                File.SetLastWriteTimeUtc(path, File.GetLastWriteTimeUtc(path).AddSeconds(5));
                break;
            default:
                File.Delete(path);
                break;
        }

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(rebuilds ? 6 : 3, (await File.ReadAllLinesAsync(sandbox.DotnetBuilds)).Length);
        Assert.Equal(rebuilds, run.Output.Contains("[npm start] Building ", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Start_LastBuildFailed_BuildsAgainThoughNothingChanged()
    {
        // Arrange: a run whose build fails leaves no stamp behind.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0", buildExitCode: 1);
        WriteIsolatedProjectsAndOutputs(sandbox);
        Assert.Equal(1, (await sandbox.RunAsync()).ExitCode);
        sandbox.AddFakeDotnet("exit:0");

        // Act
        var run = await sandbox.RunAsync();

        // Assert: the failed run's one build, then all three.
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(4, (await File.ReadAllLinesAsync(sandbox.DotnetBuilds)).Length);
    }

    [Fact]
    public async Task Start_InProcessNothingChangedSinceTheLastBuild_RunsTheBuiltOutputWithoutBuilding()
    {
        // Arrange: the isolated app's stamp must not stand in for the in-process app's.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");
        WriteIsolatedProjectsAndOutputs(sandbox);
        Write(sandbox, "FunctionApp/FunctionApp.csproj", RepoFiles.ReadAllText("FunctionApp", "FunctionApp.csproj"));
        Write(sandbox, "tools/LocalHost/LocalHost.csproj", RepoFiles.ReadAllText("tools", "LocalHost", "LocalHost.csproj"));
        Write(sandbox, "FunctionApp/bin/Release/net8.0/FunctionApp.dll", "app");
        Write(sandbox, "tools/LocalHost/bin/Release/net8.0/LocalHost.dll", "host");
        Assert.Equal(0, (await sandbox.RunAsync()).ExitCode);

        // Act
        var first = await sandbox.RunAsync("--inprocess");
        var second = await sandbox.RunAsync("--inprocess");

        // Assert: the isolated run's three builds, the first in-process run's three, none for the second.
        Assert.Equal(0, second.ExitCode);
        Assert.Contains("[npm start] Building FunctionApp/FunctionApp.csproj", first.Output, StringComparison.Ordinal);
        Assert.Equal(6, (await File.ReadAllLinesAsync(sandbox.DotnetBuilds)).Length);
        Assert.Contains("[npm start] Build output up to date", second.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--isolated")]
    [InlineData("--in-process")]
    [InlineData("--inprocess --verbose")]
    [InlineData("start")]
    public async Task Start_UnknownArgument_ExitsTwoNamingTheUsageAndStartsNothing(string commandLine)
    {
        // Arrange: a func that would run, so only the argument stops the script.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        var arguments = commandLine.Split(' ');

        // Act
        var run = await sandbox.RunAsync(arguments);

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"'{commandLine}'", run.Error, StringComparison.Ordinal);
        Assert.Contains(Usage, run.Error, StringComparison.Ordinal);
        Assert.Null(run.Func);
        Assert.Null(run.AzuritePid);
        Assert.False(File.Exists(sandbox.IsolatedSettings), "settings were written despite the usage error");
        Assert.False(File.Exists(sandbox.InProcessSettings), "settings were written despite the usage error");
    }

    [Theory]
    [InlineData("HTTP_PORT", "abc")]
    [InlineData("AZURITE_QUEUE_PORT", "70000")]
    public async Task Start_PortVariableNotAPort_ExitsTwoNamingItAndStartsNothing(string variable, string value)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        sandbox.Environment[variable] = value;

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"{variable} must be a port number (1-65535), not '{value}'.", run.Error, StringComparison.Ordinal);
        Assert.Null(run.Func);
        Assert.Null(run.AzuritePid);
    }

    [Theory]
    [InlineData("--otlp", "", "5000")]
    [InlineData("--inprocess --otlp", "", "5000")]
    [InlineData("--otlp", "OTEL_METRIC_EXPORT_INTERVAL=60000", "60000")]
    [InlineData("", "", null)]
    [InlineData("", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9", null)]
    public async Task Start_Otlp_ExportsMetricsEveryFiveSecondsUnlessTheUserSetAnInterval(string commandLine, string environment, string? interval)
    {
        // Arrange: a dashboard that shows nothing for a minute looks broken.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        foreach (var setting in environment.Split(';', StringSplitOptions.RemoveEmptyEntries))
        {
            sandbox.Environment[setting[..setting.IndexOf('=', StringComparison.Ordinal)]] = setting[(setting.IndexOf('=', StringComparison.Ordinal) + 1)..];
        }

        // Act
        var run = await sandbox.RunAsync(commandLine.Split(' ', StringSplitOptions.RemoveEmptyEntries));

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(interval, Assert.IsType<FakeFuncRecord>(run.Func).MetricExportInterval);
        if (interval == "5000")
        {
            Assert.Contains("metrics every 5 s", run.Output, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("", "", null, null)]
    [InlineData("--otlp", "", "http://127.0.0.1:4318", "http/protobuf")]
    [InlineData("--inprocess --otlp", "", "http://127.0.0.1:4318", "http/protobuf")]
    [InlineData("", "WIDGET_OTLP=dashboard", "http://127.0.0.1:4318", "http/protobuf")]
    [InlineData("--otlp", "DASHBOARD_OTLP_HTTP_PORT=14318", "http://127.0.0.1:14318", "http/protobuf")]
    [InlineData("--otlp", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "http://127.0.0.1:4317", "grpc")]
    [InlineData("--otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9", "http://127.0.0.1:9", null)]
    [InlineData("", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9", "http://127.0.0.1:9", null)]
    public async Task Start_Otlp_GivesTheHostTheDashboardEndpointUnlessTheUserSetOne(string commandLine, string environment, string? endpoint, string? protocol)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        foreach (var setting in environment.Split(';', StringSplitOptions.RemoveEmptyEntries))
        {
            var (name, value) = (setting[..setting.IndexOf('=', StringComparison.Ordinal)], setting[(setting.IndexOf('=', StringComparison.Ordinal) + 1)..]);
            sandbox.Environment[name] = value;
        }

        // Act
        var run = await sandbox.RunAsync(commandLine.Split(' ', StringSplitOptions.RemoveEmptyEntries));

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var func = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal((endpoint, protocol), (func.OtlpEndpoint, func.OtlpProtocol));
        if (endpoint is null)
        {
            Assert.DoesNotContain("Telemetry:", run.Output, StringComparison.Ordinal);
        }
        else
        {
            Assert.Contains("Telemetry: OTLP (", run.Output, StringComparison.Ordinal);
            Assert.Contains($") to {endpoint}", run.Output, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("--otlp --otlp")]
    [InlineData("--otlp=grpc")]
    public async Task Start_OtlpArgumentMalformed_ExitsTwoNamingTheUsageAndStartsNothing(string commandLine)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");

        // Act
        var run = await sandbox.RunAsync(commandLine.Split(' '));

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"'{commandLine}'", run.Error, StringComparison.Ordinal);
        Assert.Contains(Usage + " [--otlp]", run.Error, StringComparison.Ordinal);
        Assert.Null(run.Func);
        Assert.Null(run.AzuritePid);
    }

    [Fact]
    public async Task Start_WidgetOtlpNotDashboard_ExitsTwoNamingItAndStartsNothing()
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        sandbox.Environment["WIDGET_OTLP"] = "sink";

        // Act
        var run = await sandbox.RunAsync();

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains("WIDGET_OTLP must be 'dashboard' (or unset), not 'sink'.", run.Error, StringComparison.Ordinal);
        Assert.Null(run.Func);
        Assert.Null(run.AzuritePid);
    }

    [Fact]
    public async Task Start_FuncInNodeModules_RunsItInTheIsolatedAppRatherThanWorkerHost()
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
        Assert.Equal(Path.Combine(sandbox.Root, "FunctionApp.Isolated"), func.Cwd);
        Assert.Equal(["build tools/LocalIssuer/LocalIssuer.csproj --configuration Release --nologo -v quiet"], await File.ReadAllLinesAsync(sandbox.DotnetBuilds));
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
    [InlineData(0, false)]
    [InlineData(3, false)]
    [InlineData(0, true)]
    [InlineData(3, true)]
    public async Task Start_FuncExits_RanFuncStartInTheAppsFolderWithAzuriteUpThenStopsAzurite(int funcExitCode, bool inProcess)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc($"exit:{funcExitCode}");

        // Act
        var run = inProcess ? await sandbox.RunAsync("--inprocess") : await sandbox.RunAsync();

        // Assert: the isolated app by default, the in-process one with --inprocess.
        Assert.Equal(funcExitCode, run.ExitCode);
        var func = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.Equal(Path.Combine(sandbox.Root, inProcess ? "FunctionApp" : "FunctionApp.Isolated"), func.Cwd);
        Assert.Contains($"in {(inProcess ? "FunctionApp" : "FunctionApp.Isolated")}/ (Ctrl-C stops func and Azurite)", run.Output, StringComparison.Ordinal);
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
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public async Task Start_Settings_CopiesTheAppsSampleOnlyWhenAbsent(bool settingsExist, bool inProcess)
    {
        // Arrange: the isolated app's own sample by default, the repository root's with --inprocess.
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        var (settings, sample, other) = inProcess
            ? (sandbox.InProcessSettings, sandbox.InProcessSample, sandbox.IsolatedSettings)
            : (sandbox.IsolatedSettings, sandbox.IsolatedSample, sandbox.InProcessSettings);
        const string mine = """{ "IsEncrypted": false, "Values": { "mine": "kept" } }""";
        if (settingsExist)
        {
            await File.WriteAllTextAsync(settings, mine);
        }

        // Act
        var run = inProcess ? await sandbox.RunAsync("--inprocess") : await sandbox.RunAsync();

        // Assert
        Assert.Equal(0, run.ExitCode);
        var expected = settingsExist ? mine : await File.ReadAllTextAsync(sample);
        Assert.Equal(expected, await File.ReadAllTextAsync(settings));
        Assert.False(File.Exists(other), "the other app's settings were written");
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Start_FuncNotInstalled_RunsTheLocalIssuerOnItsPortUntilTheHostExitsThenStopsIt(bool inProcess)
    {
        // Arrange
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeDotnet("exit:0");

        // Act
        var run = inProcess ? await sandbox.RunAsync("--inprocess") : await sandbox.RunAsync();

        // Assert: the issuer listened when the host started, on ISSUER_PORT, and was stopped (SIGTERM) with Azurite.
        Assert.Equal(0, run.ExitCode);
        var host = Assert.IsType<FakeFuncRecord>(run.Func);
        Assert.True(host.IssuerListening, $"the local issuer was not listening when the host started.\n{run.Output}\n{run.Error}");
        using var issuer = System.Text.Json.JsonDocument.Parse(await File.ReadAllTextAsync(sandbox.IssuerRecord));
        Assert.Equal(
            [Path.Combine(sandbox.Root, "tools", "LocalIssuer", "bin", "Release", "net10.0", "LocalIssuer.dll"), "--port", sandbox.IssuerPort.ToString(System.Globalization.CultureInfo.InvariantCulture)],
            issuer.RootElement.GetProperty("args").EnumerateArray().Select(a => a.GetString()));
        Assert.Equal("SIGTERM", issuer.RootElement.GetProperty("signal").GetString());
        Assert.Equal($"http://127.0.0.1:{sandbox.IssuerPort}/7a1e0000-0000-4000-8000-000000000001/v2.0", host.AuthAuthority);
        Assert.False(await Loopback.AcceptsAsync(sandbox.IssuerPort), "the issuer still listens after the script exited");
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Start_HostStarts_AfterTheLocalCallerIsGrantedEveryLocalReceiver(bool inProcess)
    {
        // Arrange: settings whose local keys are for partner-a and partner-c (besides the default receiver's).
        await using var sandbox = StartScriptSandbox.Create();
        sandbox.AddFakeFunc("exit:0");
        var settings = inProcess ? sandbox.InProcessSettings : sandbox.IsolatedSettings;
        var sample = inProcess ? sandbox.InProcessSample : sandbox.IsolatedSample;
        await File.WriteAllTextAsync(settings, (await File.ReadAllTextAsync(sample)).Replace("\"Signing:LocalKeys:partner-b\"", "\"Signing:LocalKeys:partner-c\"", StringComparison.Ordinal));

        // Act
        var run = inProcess ? await sandbox.RunAsync("--inprocess") : await sandbox.RunAsync();

        // Assert: exactly the receivers the settings hold a key for, written by npm start before the host started.
        Assert.Equal(0, run.ExitCode);
        var host = Assert.IsType<FakeFuncRecord>(run.Func);
        var grants = Assert.IsAssignableFrom<IReadOnlyList<FakeFuncGrant>>(host.Grants);
        Assert.Equal(
            [
                new FakeFuncGrant("7a1e0000-0000-4000-8000-00000000000c", "default", "npm start"),
                new FakeFuncGrant("7a1e0000-0000-4000-8000-00000000000c", "partner-a", "npm start"),
                new FakeFuncGrant("7a1e0000-0000-4000-8000-00000000000c", "partner-c", "npm start"),
            ],
            grants.OrderBy(g => g.Receiver, StringComparer.Ordinal));
    }

    /// <summary>
    /// The isolated app's, the core's and WorkerHost's real project files and a few of their sources (with what they
    /// include from elsewhere and the build-wide files), plus the two outputs the script runs, as a build leaves them.
    /// </summary>
    private static void WriteIsolatedProjectsAndOutputs(StartScriptSandbox sandbox)
    {
        foreach (var file in new[]
        {
            "FunctionApp.Isolated/FunctionApp.Isolated.csproj", "FunctionApp.Isolated/Program.cs", "WidgetSigning/WidgetSigning.csproj",
            "WidgetSigning/Signing/EnvelopeSigner.cs", "tools/WorkerHost/WorkerHost.csproj", "tools/WorkerHost/Program.cs",
            "tools/Shared/HostCommandLine.cs", "tools/Shared/HostHttpLimits.cs", "Directory.Build.props", "Directory.Packages.props",
            "global.json", "docs/api.md", "tools/LocalIssuer/LocalIssuer.csproj", "tools/LocalIssuer/Program.cs",
        })
        {
            Write(sandbox, file, RepoFiles.ReadAllText(file.Split('/')));
        }

        Write(sandbox, "FunctionApp.Isolated/bin/Release/net10.0/FunctionApp.Isolated.dll", "app");
        Write(sandbox, "tools/WorkerHost/bin/Release/net10.0/WorkerHost.dll", "host");
        Write(sandbox, "tools/LocalIssuer/bin/Release/net10.0/LocalIssuer.dll", "issuer");
    }

    private static void Write(StartScriptSandbox sandbox, string file, string text)
    {
        var path = Path.Combine([sandbox.Root, .. file.Split('/')]);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, text);
    }

    private static void AssertAzuriteRanWithoutTelemetryAndStopped(StartScriptSandbox sandbox, StartScriptRun run)
    {
        var pid = Assert.IsType<int>(run.AzuritePid);
        Assert.False(StartScriptSandbox.IsRunning(pid), $"Azurite (pid {pid}) is still running after the script exited");
        Assert.True(File.Exists(Path.Combine(sandbox.AzuriteLocation, "__azurite_db_queue__.json")), $"Azurite kept no data in {sandbox.AzuriteLocation}");
        Assert.False(File.Exists(Path.Combine(sandbox.AzuriteLocation, AzuriteTelemetryFile)), "Azurite ran with telemetry on");
    }
}
