using FunctionApp.Functions;
using FunctionApp.Functions.QueueTrigger;
using WidgetSigning.Queues;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// What the platform reads from the build output: the generated function.json (the scale controller watches the queue
/// it names, on the connection it names) and extensions.json (the host loads our trigger's startup from it).
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
        var trigger = Assert.Single(bindings, b => b.Value<string>("type") == "widgetQueueTrigger");
        var sample = LocalSettingsSample();

        // Assert: the queue is the flat app setting WidgetInputQueue; the connection is the setting WidgetStorage.
        Assert.Equal("%WidgetInputQueue%", trigger.Value<string>("queueName"));
        Assert.Equal("WidgetStorage", trigger.Value<string>("connection"));
        Assert.Equal(QueueOptions.ConnectionSetting, trigger.Value<string>("connection"));
        Assert.Equal("widget-envelopes", sample["WidgetInputQueue"]);
        Assert.Equal("UseDevelopmentStorage=true", sample["WidgetStorage"]);

        // The trigger is the only binding: outputs go through the app's own clients on the same connection.
        Assert.Single(bindings);
    }

    [Fact]
    public void ExtensionsJson_BuildOutput_ListsOurTriggerStartupAndNoStorageExtension()
    {
        // Arrange
        var path = Path.Combine(AppOutput(), "bin", "extensions.json");

        // Act
        var extensions = (JArray)JObject.Parse(File.ReadAllText(path))["extensions"]!;

        // Assert: the host loads our trigger from here; the storage extension it refuses (4.0.2 < 4.0.4) is gone.
        Assert.Contains(extensions, e => e.Value<string>("typeName")!.StartsWith(typeof(WidgetQueueWebJobsStartup).FullName + ", FunctionApp,", StringComparison.Ordinal));
        Assert.DoesNotContain(extensions, e => e.Value<string>("typeName")!.Contains("Microsoft.Azure.WebJobs.Extensions.Storage", StringComparison.Ordinal));
    }

    [Fact]
    public void HostJson_Queues_HoldsOnlyKeysTheExtensionBinds()
    {
        // Arrange
        var host = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "host.json")));

        // Act
        var keys = ((JObject)host["extensions"]!["queues"]!).Properties().Select(p => p.Name).ToList();

        // Assert: keys our trigger's options bind (no messageEncoding: messages are base64).
        var known = typeof(WidgetQueueOptions).GetProperties().Where(p => p.CanWrite).Select(p => p.Name).ToHashSet(StringComparer.OrdinalIgnoreCase);
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
