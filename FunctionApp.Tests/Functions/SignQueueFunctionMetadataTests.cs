using FunctionApp.Functions;
using FunctionApp.Queues;
using FunctionApp.Tests.Infrastructure;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// What the platform reads from the build output: the generated function.json (the scale controller watches the queue
/// it names, on the connection it names) and extensions.json (the host loads the storage extension from it).
/// </summary>
public sealed class SignQueueFunctionMetadataTests
{
    [Fact]
    public void FunctionJson_SignQueue_IsAQueueTriggerOnTheConfiguredQueueAndConnection()
    {
        // Arrange
        var path = Path.Combine(AppOutput(), SignQueueFunction.Name, "function.json");
        Assert.True(File.Exists(path), $"the build should have generated {path}");

        // Act
        var bindings = (JArray)JObject.Parse(File.ReadAllText(path))["bindings"]!;
        var trigger = Assert.Single(bindings, b => b.Value<string>("type") == "queueTrigger");
        var sample = LocalSettingsSample();

        // Assert: the queue is the flat app setting WidgetInputQueue; the connection is the setting WidgetStorage.
        Assert.Equal("%WidgetInputQueue%", trigger.Value<string>("queueName"));
        Assert.Equal("WidgetStorage", trigger.Value<string>("connection"));
        Assert.Equal(QueueOptions.ConnectionSetting, trigger.Value<string>("connection"));
        Assert.Equal("widget-envelopes", sample["WidgetInputQueue"]);
        Assert.Equal("UseDevelopmentStorage=true", sample["WidgetStorage"]);

        // Every output uses the same connection: forwarding and rejecting are extension bindings too.
        Assert.All(bindings, b => Assert.Equal("WidgetStorage", b.Value<string>("connection")));
        Assert.Equal(
            ["%WidgetOutputQueue%", "%WidgetRejectedQueue%"],
            bindings.Where(b => b.Value<string>("type") == "queue").Select(b => b.Value<string>("queueName")!).Order(StringComparer.Ordinal));
        Assert.Equal(
            ["%WidgetCanonicalContainer%", "%WidgetClaimsContainer%", "%WidgetRejectedContainer%"],
            bindings.Where(b => b.Value<string>("type") == "blob").Select(b => b.Value<string>("blobPath")!).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void ExtensionsJson_BuildOutput_LoadsTheStorageExtension()
    {
        // Arrange
        var path = Path.Combine(AppOutput(), "bin", "extensions.json");

        // Act
        var extensions = (JArray)JObject.Parse(File.ReadAllText(path))["extensions"]!;

        // Assert
        Assert.Contains(extensions, e => e.Value<string>("typeName")!.StartsWith(
            "Microsoft.Azure.WebJobs.Extensions.Storage.AzureStorageWebJobsStartup, Microsoft.Azure.WebJobs.Extensions.Storage, Version=4.0.2.0", StringComparison.Ordinal));
    }

    [Fact]
    public void HostJson_Queues_HoldsOnlyKeysTheExtensionBinds()
    {
        // Arrange
        var host = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "host.json")));

        // Act
        var keys = ((JObject)host["extensions"]!["queues"]!).Properties().Select(p => p.Name).ToList();

        // Assert: the QueuesOptions of Microsoft.Azure.WebJobs.Extensions.Storage 4.x (no messageEncoding: messages are base64).
        var known = typeof(Microsoft.Azure.WebJobs.Host.QueuesOptions).GetProperties().Select(p => p.Name).ToHashSet(StringComparer.OrdinalIgnoreCase);
        Assert.All(keys, key => Assert.Contains(key, known));
        Assert.DoesNotContain("messageEncoding", keys);
    }

    /// <summary>The app's build output for the configuration these tests were built in (the Functions SDK writes function.json there).</summary>
    private static string AppOutput()
    {
        var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar)).Parent!.Name;
        return Path.Combine(RepoRoot.Path, "FunctionApp", "bin", configuration, "net8.0");
    }

    private static Dictionary<string, string?> LocalSettingsSample() =>
        ((JObject)JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "local.settings.sample.json")))["Values"]!)
            .Properties().ToDictionary(p => p.Name, p => (string?)p.Value);
}
