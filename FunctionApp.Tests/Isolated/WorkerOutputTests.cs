using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated app's host-facing build output, checked with the rules of the code that reads it:
/// <list type="bullet">
/// <item>functions.metadata: written by the Worker SDK (Azure/azure-functions-dotnet-worker <c>sdk/Sdk/FunctionMetadataJsonWriter.cs</c>
/// at fb1133321b86), read and validated by the host (Azure/azure-functions-host
/// <c>src/WebJobs.Script/Host/WorkerFunctionMetadataProvider.cs</c> ValidateMetadata/ValidateBindings at 89dc438d4765, with
/// the name rules of <c>src/WebJobs.Script/Utility.cs</c> l.59–60 and l.592): function names, binding names, one trigger, <c>$return</c> out.</item>
/// <item>worker.config.json: how the host starts the worker (<c>src/WebJobs.Script/Workers/Rpc/Configuration/RpcWorkerConfigFactory.cs</c>,
/// used only when FUNCTIONS_WORKER_RUNTIME equals its language).</item>
/// <item>extensions.json: the WebJobs extensions the host loads from .azurefunctions/ (<c>src/WebJobs.Script/Utility.cs</c>
/// TryResolveExtensionsMetadataPath; <c>src/WebJobs.Script/DependencyInjection/ScriptStartupTypeLocator.cs</c>).</item>
/// </list>
/// </summary>
public sealed partial class WorkerOutputTests
{
    public static TheoryData<string, string, string?, string?> Functions() => new()
    {
        // name, trigger type, route, method
        { "Sign", "httpTrigger", "sign", "post" },
        { "Verify", "httpTrigger", "verify", "post" },
        { "Keys", "httpTrigger", "keys", "get" },
        { "SignQueue", "queueTrigger", null, null },
    };

    [Theory]
    [MemberData(nameof(Functions))]
    public void FunctionsMetadata_EachFunction_HasItsTriggerRouteMethodAndFunctionAuthLevel(string name, string triggerType, string? route, string? method)
    {
        // Act
        var function = Metadata().Single(f => f.Value<string>("name") == name);
        var trigger = Trigger(function);

        // Assert
        Assert.Equal("FunctionApp.Isolated.dll", function.Value<string>("scriptFile"));
        Assert.Equal("dotnet-isolated", function.Value<string>("language"));
        Assert.Equal(triggerType, trigger.Value<string>("type"));
        if (route is not null)
        {
            Assert.Equal(route, trigger.Value<string>("route"));
            Assert.Equal([method], trigger["methods"]!.Values<string>());
            Assert.Equal("Function", trigger.Value<string>("authLevel"));
        }
    }

    [Fact]
    public void FunctionsMetadata_TheFunctions_AreExactlyTheInProcessAppsFunctions()
    {
        // Arrange: the in-process app's function.json folders (Microsoft.NET.Sdk.Functions' output).
        var inProcess = Directory.EnumerateFiles(AppBuildOutput.Path, "function.json", SearchOption.AllDirectories)
            .Select(f => new DirectoryInfo(Path.GetDirectoryName(f)!).Name)
            .Order(StringComparer.Ordinal);

        // Act
        var isolated = Metadata().Select(f => f.Value<string>("name")!).Order(StringComparer.Ordinal);

        // Assert
        Assert.Equal(inProcess, isolated);
    }

    [Fact]
    public void FunctionsMetadata_EveryFunction_PassesTheHostsValidation()
    {
        // Arrange: WorkerFunctionMetadataProvider.ValidateMetadata's name rule and BindingMetadata's binding-name rule.
        foreach (var function in Metadata())
        {
            var name = function.Value<string>("name")!;
            var bindings = function["bindings"]!.Children<JObject>().ToList();

            // Act
            var names = bindings.Select(b => b.Value<string>("name")!).ToList();
            var triggers = bindings.Where(b => b.Value<string>("direction") == "In" && b.Value<string>("type")!.EndsWith("trigger", StringComparison.OrdinalIgnoreCase));

            // Assert
            Assert.Matches(FunctionName(), name);
            Assert.All(names, n => Assert.Matches(BindingName(), n));
            Assert.Equal(names.Count, names.Distinct(StringComparer.OrdinalIgnoreCase).Count());
            Assert.Single(triggers);
            Assert.All(bindings.Where(b => b.Value<string>("name") == "$return"), b => Assert.Equal("Out", b.Value<string>("direction")));
        }
    }

    [Fact]
    public void FunctionsMetadata_QueueTrigger_NamesAFlatSettingTheWidgetStorageConnectionAndDeferredBinding()
    {
        // Act
        var trigger = Trigger(Metadata().Single(f => f.Value<string>("name") == "SignQueue"));
        var queueName = trigger.Value<string>("queueName")!;

        // Assert: %Setting% with a flat name (the platform resolves trigger settings from the root; no ':' or '__').
        Assert.Equal("%WidgetInputQueue%", queueName);
        Assert.Contains("WidgetInputQueue", AppOptionsCatalog.FlatSettings);
        Assert.Equal("WidgetStorage", trigger.Value<string>("connection"));
        // QueueMessage is bound from ModelBindingData: the host asks the extension for ParameterBindingData only with this.
        Assert.Equal("True", trigger["properties"]!.Value<string>("supportsDeferredBinding"));
    }

    [Fact]
    public void WorkerConfig_Description_StartsTheAppsDllWithDotnetAndWorkerIndexing()
    {
        // Act
        var description = JObject.Parse(File.ReadAllText(IsolatedBuildOutput.File("worker.config.json")))["description"]!;

        // Assert
        Assert.Equal("dotnet-isolated", description.Value<string>("language"));
        Assert.Equal("dotnet", description.Value<string>("defaultExecutablePath"));
        Assert.Equal("FunctionApp.Isolated.dll", description.Value<string>("defaultWorkerPath"));
        Assert.True(File.Exists(IsolatedBuildOutput.File(description.Value<string>("defaultWorkerPath")!)));
        Assert.Equal("true", description.Value<string>("workerIndexing"));
    }

    [Fact]
    public void ExtensionsJson_StorageQueues_IsTheOfficialExtensionAtTheServedVersionAndItsDllIsThere()
    {
        // Act
        var extensions = ((JArray)JObject.Parse(File.ReadAllText(IsolatedBuildOutput.File("extensions.json")))["extensions"]!).Children<JObject>().ToList();
        var queues = extensions.Single(e => e.Value<string>("name") == "AzureStorageQueues");
        var dll = Path.GetFullPath(Path.Combine(IsolatedBuildOutput.Path, queues.Value<string>("hintPath")!));

        // Assert
        Assert.StartsWith("Microsoft.Azure.WebJobs.Extensions.Storage.AzureStorageQueuesWebJobsStartup, Microsoft.Azure.WebJobs.Extensions.Storage.Queues, Version=5.3.10.0", queues.Value<string>("typeName"), StringComparison.Ordinal);
        Assert.Equal(new Version(5, 3, 10, 0), System.Reflection.AssemblyName.GetAssemblyName(dll).Version);
        // The loader that points the host at worker.config.json and functions.metadata.
        Assert.Contains(extensions, e => e.Value<string>("typeName")!.StartsWith("Microsoft.Azure.WebJobs.Extensions.FunctionMetadataLoader.Startup,", StringComparison.Ordinal));
    }

    [Fact]
    public void WorkerExtensionsProject_Restore_TakesExactServedVersions()
    {
        // Arrange: the project the Worker SDK generates; FunctionApp.Isolated.csproj pins what it asks for that is not served.
        var configuration = new DirectoryInfo(Path.GetDirectoryName(IsolatedBuildOutput.Path)!).Name;
        var assets = Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "obj", configuration, "net10.0", "WorkerExtensions", "obj", "project.assets.json");

        // Act
        var json = JObject.Parse(File.ReadAllText(assets));
        var logs = (json["logs"] as JArray)?.Select(l => $"{l.Value<string>("code")}: {l.Value<string>("message")}").ToList() ?? [];
        var queues = ((JObject)json["libraries"]!).Properties().Single(p => p.Name.StartsWith("Microsoft.Azure.WebJobs.Extensions.Storage.Queues/", StringComparison.Ordinal)).Name;

        // Assert
        Assert.Empty(logs);
        Assert.Equal("Microsoft.Azure.WebJobs.Extensions.Storage.Queues/5.3.10", queues);
    }

    [Fact]
    public void LocalSettingsSample_OfTheIsolatedApp_NamesTheIsolatedWorkerAndOtherwiseTheInProcessAppsSettings()
    {
        // Arrange
        var isolated = Values("FunctionApp.Isolated", "local.settings.sample.json");
        var inProcess = Values("local.settings.sample.json");
        // The in-process app also keeps the host's HTTP throttle: its binding copies each Content-Length body first.
        string[] inProcessOnly = ["FUNCTIONS_WORKER_RUNTIME", "FUNCTIONS_INPROC_NET8_ENABLED", "AzureFunctionsJobHost__extensions__http__maxConcurrentRequests", "AzureFunctionsJobHost__extensions__http__maxOutstandingRequests"];
        // The worker is a process the host starts with these settings as its environment, so a runtime knob reaches it;
        // the in-process app runs in a host already started.
        string[] isolatedOnly = ["FUNCTIONS_WORKER_RUNTIME", "DOTNET_GCgen0size"];

        // Act
        var runtime = isolated["FUNCTIONS_WORKER_RUNTIME"];

        // Assert
        Assert.Equal("dotnet-isolated", runtime);
        Assert.False(isolated.ContainsKey("FUNCTIONS_INPROC_NET8_ENABLED"));
        // Auth differs: the isolated app validates tokens of the local issuer; the in-process app cannot (docs/api.md).
        Assert.Equal(
            inProcess.Where(p => !inProcessOnly.Contains(p.Key) && !p.Key.StartsWith("Auth:", StringComparison.Ordinal)).OrderBy(p => p.Key, StringComparer.Ordinal),
            isolated.Where(p => !isolatedOnly.Contains(p.Key) && !p.Key.StartsWith("Auth:", StringComparison.Ordinal)).OrderBy(p => p.Key, StringComparer.Ordinal));
    }

    private static List<JObject> Metadata() =>
        JArray.Parse(File.ReadAllText(IsolatedBuildOutput.File("functions.metadata"))).Children<JObject>().ToList();

    private static JObject Trigger(JObject function) =>
        function["bindings"]!.Children<JObject>().Single(b => b.Value<string>("type")!.EndsWith("Trigger", StringComparison.Ordinal));

    private static Dictionary<string, string?> Values(params string[] path) =>
        JObject.Parse(RepoFiles.ReadAllText(path))["Values"]!.Children<JProperty>().ToDictionary(p => p.Name, p => (string?)p.Value);

    // azure-functions-host src/WebJobs.Script/Utility.cs l.59 (89dc438d4765), FunctionNameValidationRegex.
    [GeneratedRegex(@"^[a-z][a-z0-9_\-]{0,127}$(?<!^host$)", RegexOptions.IgnoreCase)]
    private static partial Regex FunctionName();

    // azure-functions-host src/WebJobs.Script/Utility.cs l.60 (89dc438d4765), BindingNameValidationRegex.
    [GeneratedRegex(@"^([a-zA-Z][a-zA-Z0-9]{0,127}|\$return)$")]
    private static partial Regex BindingName();
}
