using System.Reflection;
using System.Security.Cryptography;
using System.Text;
using Azure.Storage.Queues;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// The app on an in-process host older than 4.837, which ships System.Memory.Data 1.0.2.0 (through Azure.Core 1.38.0:
/// azure-functions-host tag v4.836.2, commit 2a4243c972dccbf98a13909942b7adfa005f81f1,
/// test/WebJobs.Script.Tests/DepsFiles/net8.0/Microsoft.Azure.WebJobs.Script.WebHost.deps.json) where Azure.Core 1.50,
/// Azure.Identity and our queue trigger (<c>QueueMessage.Body</c>) ask for 8.0.0.1. The doctored host is a copy of
/// tools/LocalHost with that 1.0.2 in place of its own 8.0.0.1; it loads the app with the real host's rules
/// (src/WebJobs.Script/Description/DotNet/FunctionAssemblyLoadContext.cs, in-proc branch, commit
/// 95e0b27a6b1c405e32a560999a52e16a3573f255): a request for a unified assembly is raised to the version
/// bin/function.deps.json records (8.0.0.1) and, being above the host's copy, loaded from bin/, where only
/// <c>&lt;FunctionsPreservedDependencies Include="System.Memory.Data.dll" /&gt;</c> keeps it.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class OlderHostTests(AzuriteFixture azurite)
{
    private static readonly TimeSpan Startup = TimeSpan.FromSeconds(90);
    private static readonly TimeSpan Processing = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task SignQueue_HostShipsSystemMemoryData102AndTheAppPreservesItsCopy_SignsTheMessage()
    {
        // Arrange: the build output as it is (the Functions SDK leaves bin/System.Memory.Data.dll only because the app
        // preserves it), on the doctored host.
        var host = DoctoredHost();
        var app = AppBuildOutput.CopyToTemp();
        try
        {
            var (input, output, environment) = await QueuesAsync("preserved");
            await using var process = LocalHostProcess.Start(Path.Combine(host.FullName, "LocalHost.dll"), app.FullName, environment);
            await process.ReadyAsync(Startup);
            var vector = Path.Combine(AppContext.BaseDirectory, "TestData", "vectors", "one-widget");
            var canonical = await File.ReadAllBytesAsync(Path.Combine(vector, "canonical.json"));

            // Act
            var sent = await input.SendMessageAsync(Convert.ToBase64String(await File.ReadAllBytesAsync(Path.Combine(vector, "input.json"))));
            var result = await ReceiveAsync(output, Processing);

            // Assert
            Assert.True(result is not null, $"no output within {Processing.TotalSeconds} s; host output:\n{process.Output}\n{process.Error}");
            Assert.Equal(sent.Value.MessageId, (string?)result["messageId"]);
            Assert.Equal(Convert.ToHexString(HMACSHA256.HashData(SampleKey(), canonical)).ToLowerInvariant(), (string?)result["signature"]);
            Assert.DoesNotContain("System.Memory.Data, Version=8.0.0.1", process.Output, StringComparison.Ordinal);
        }
        finally
        {
            app.Delete(recursive: true);
            host.Delete(recursive: true);
        }
    }

    [Fact]
    public async Task SignQueue_HostShipsSystemMemoryData102AndTheAppHasNoCopy_EveryMessageFailsWithFileNotFoundFor8001()
    {
        // Arrange: the build output without bin/System.Memory.Data.dll, i.e. as the SDK leaves it without
        // <FunctionsPreservedDependencies> (that file is the only difference between the two builds).
        var host = DoctoredHost();
        var app = AppBuildOutput.CopyToTemp();
        try
        {
            File.Delete(Path.Combine(app.FullName, "bin", "System.Memory.Data.dll"));
            var (input, output, environment) = await QueuesAsync("nocopy");
            await using var process = LocalHostProcess.Start(Path.Combine(host.FullName, "LocalHost.dll"), app.FullName, environment);
            await process.ReadyAsync(Startup);
            var vector = Path.Combine(AppContext.BaseDirectory, "TestData", "vectors", "one-widget");

            // Act
            await input.SendMessageAsync(Convert.ToBase64String(await File.ReadAllBytesAsync(Path.Combine(vector, "input.json"))));
            var failed = await WaitForAsync(
                () => process.Output.Contains("FileNotFoundException: Could not load file or assembly 'System.Memory.Data, Version=8.0.0.1", StringComparison.Ordinal)
                    && process.Output.Contains("WidgetQueueListener.ProcessAsync(QueueMessage message)", StringComparison.Ordinal),
                Processing);

            // Assert: the message is not signed; it stays on the input queue (invisible until its lease ends, then again).
            Assert.True(failed, $"the message did not fail on System.Memory.Data 8.0.0.1 within {Processing.TotalSeconds} s; host output:\n{process.Output}\n{process.Error}");
            Assert.Null(await ReceiveAsync(output, TimeSpan.FromSeconds(2)));
            Assert.Equal(1, (await input.GetPropertiesAsync()).Value.ApproximateMessagesCount);
        }
        finally
        {
            app.Delete(recursive: true);
            host.Delete(recursive: true);
        }
    }

    /// <summary>A copy of tools/LocalHost's output whose System.Memory.Data is the 1.0.2.0 older hosts ship.</summary>
    private static DirectoryInfo DoctoredHost()
    {
        var source = Path.GetDirectoryName(LocalHostProcess.Dll)!;
        var older = typeof(OlderHostTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "OlderHostSystemMemoryData").Value!;
        Assert.True(File.Exists(older), $"{older} is missing: restore FunctionApp.Tests (its PackageDownload brings it).");
        var copy = Directory.CreateTempSubdirectory("older-host-");
        foreach (var file in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            var target = Path.Combine(copy.FullName, Path.GetRelativePath(source, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }

        File.Copy(older, Path.Combine(copy.FullName, "System.Memory.Data.dll"), overwrite: true);
        Assert.Equal(new Version(1, 0, 2, 0), AssemblyName.GetAssemblyName(Path.Combine(copy.FullName, "System.Memory.Data.dll")).Version);
        return copy;
    }

    private async Task<(QueueClient Input, QueueClient Output, Dictionary<string, string> Environment)> QueuesAsync(string name)
    {
        var prefix = $"older-{name}-{Guid.NewGuid():N}"[..30];
        var queues = new QueueServiceClient(azurite.ConnectionString, new QueueClientOptions { MessageEncoding = QueueMessageEncoding.None });
        var input = queues.GetQueueClient($"{prefix}-in");
        var output = queues.GetQueueClient($"{prefix}-out");
        var rejected = queues.GetQueueClient($"{prefix}-rejected");
        foreach (var queue in new[] { input, output, rejected })
        {
            await queue.CreateIfNotExistsAsync();
        }

        return (input, output, new Dictionary<string, string>
        {
            ["AzureWebJobsStorage"] = azurite.ConnectionString,
            ["WidgetStorage"] = azurite.ConnectionString,
            ["WidgetInputQueue"] = input.Name,
            ["WidgetOutputQueue"] = output.Name,
            ["WidgetRejectedQueue"] = rejected.Name,
        });
    }

    private static async Task<JObject?> ReceiveAsync(QueueClient output, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        do
        {
            var message = (await output.ReceiveMessageAsync()).Value;
            if (message is not null)
            {
                return JObject.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(message.Body.ToString())));
            }

            await Task.Delay(200);
        }
        while (DateTime.UtcNow < deadline);
        return null;
    }

    private static async Task<bool> WaitForAsync(Func<bool> condition, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(200);
        }

        return true;
    }

    private static byte[] SampleKey() =>
        Convert.FromBase64String((string)JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "local.settings.sample.json")))["Values"]!["Signing:LocalKey"]!);
}
