using HostCompatibility;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// The Azure Functions v4 host's start-up rules, applied to the app's real build output. The rules and versions come
/// from the host's public source, github.com/Azure/azure-functions-host at commit
/// 89dc438d476542786f2fc4070f553423213a6223: src/WebJobs.Script/extensionrequirements.json checked by
/// ScriptStartupTypeLocator.ValidateExtensionRequirements (src/WebJobs.Script/DependencyInjection/ScriptStartupTypeLocator.cs),
/// src/WebJobs.Script/runtimeassemblies.json with the policies of
/// src/WebJobs.Script/Description/DotNet/FunctionAssemblyLoadContext.cs (tools/HostCompatibility/host-facts.json holds them).
/// </summary>
public sealed class HostCompatibilityTests
{
    [Fact]
    public void ExtensionsJson_EveryStartupType_MeetsTheHostsMinimumVersions()
    {
        var problems = HostCompatibilityChecker.CheckExtensionMinimums(AppBuildOutput.Path, HostFacts.Default);

        Assert.True(problems.Count == 0, Describe(problems));
    }

    [Fact]
    public void BuildOutput_UnifiedAssemblies_NoneAboveWhatTheHostShips()
    {
        var problems = HostCompatibilityChecker.CheckUnifiedAssemblies(AppBuildOutput.Path, HostFacts.Default);

        Assert.True(problems.Count == 0, Describe(problems));
    }

    [Fact]
    public void FunctionJson_GeneratedBy_FunctionsSdkAtLeast440()
    {
        var problems = HostCompatibilityChecker.CheckFunctionsSdk(AppBuildOutput.Path, HostFacts.Default);

        Assert.True(problems.Count == 0, Describe(problems));
    }

    [Fact]
    public void FunctionJson_EveryFunction_HasOneTriggerAndQueueBindingsNameQueueAndConnection()
    {
        var problems = HostCompatibilityChecker.CheckFunctionMetadata(AppBuildOutput.Path);

        Assert.True(problems.Count == 0, Describe(problems));
        Assert.Contains(FunctionMetadataReader.ReadAll(AppBuildOutput.Path), f => f.Name == "Sign");
    }

    [Fact]
    public void HostFacts_Default_HoldsTheHostsStorageMinimumAndUnificationPolicies()
    {
        var facts = HostFacts.Default;

        var storage = Assert.Single(facts.ExtensionRequirements, r => r.Name == "AzureStorageWebJobsStartup");
        Assert.Equal(("Microsoft.Azure.WebJobs.Extensions.Storage", "4.0.4.0"), (storage.AssemblyName, storage.MinimumAssemblyVersion));
        Assert.Equal("minorMatchOrLower", facts.UnifiedAssemblies.Single(a => a.Name == "Microsoft.Extensions.Logging.Abstractions").ResolutionPolicy);
        Assert.Equal("8.0.0.0", facts.UnifiedAssemblies.Single(a => a.Name == "Microsoft.Extensions.Logging.Abstractions").HostVersion);
        Assert.Equal("runtimeVersion", facts.UnifiedAssemblies.Single(a => a.Name == "Newtonsoft.Json").ResolutionPolicy);
        Assert.Equal("4.4.0", facts.MinimumFunctionsSdkVersion);
    }

    [Theory]
    [InlineData("4.0.2.0", true)]
    [InlineData("4.0.3.9", true)]
    [InlineData("4.0.4.0", false)]
    [InlineData("5.0.0.0", false)]
    public void CheckExtensionMinimums_DoctoredStorageExtension_FailsBelow404(string version, bool refused)
    {
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            DoctoredExtension.Add(
                System.IO.Path.Combine(copy.FullName, "bin"),
                "Microsoft.Azure.WebJobs.Extensions.Storage",
                "Microsoft.Azure.WebJobs.Extensions.Storage.AzureStorageWebJobsStartup",
                version);

            var problems = HostCompatibilityChecker.CheckExtensionMinimums(copy.FullName, HostFacts.Default)
                .Where(p => p.Message.Contains("AzureStorageWebJobsStartup", StringComparison.Ordinal) && p.Message.Contains($"Version={version}", StringComparison.Ordinal))
                .ToList();

            Assert.Equal(refused, problems.Count == 1);
            if (refused)
            {
                Assert.Contains("Update your NuGet package reference for Microsoft.Azure.WebJobs.Extensions.Storage to 4.0.4 or later", problems[0].Message, StringComparison.Ordinal);
            }
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public void CheckExtensionMinimums_SameTypeNameFromAnotherAssembly_IsNotCheckedAsTheHostSkipsIt()
    {
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            DoctoredExtension.Add(System.IO.Path.Combine(copy.FullName, "bin"), "Contoso.Storage", "Contoso.Storage.AzureStorageWebJobsStartup", "1.0.0.0");

            var problems = HostCompatibilityChecker.CheckExtensionMinimums(copy.FullName, HostFacts.Default);

            Assert.DoesNotContain(problems, p => p.Message.Contains("Contoso", StringComparison.Ordinal));
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public void CheckUnifiedAssemblies_AssemblyAboveTheHostsVersionInBin_Fails()
    {
        // A real Microsoft.Extensions.Logging.Abstractions above 8.x: the one this test process runs on (the tests roll
        // forward to the newest runtime; the .NET 10 SDK is the only one on CI).
        var newer = typeof(Microsoft.Extensions.Logging.ILogger).Assembly;
        Assert.True(newer.GetName().Version!.Major > 8, $"precondition: the test process loaded {newer.FullName}, not a newer major than the host's 8.0");
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            File.Copy(newer.Location, System.IO.Path.Combine(copy.FullName, "bin", "Microsoft.Extensions.Logging.Abstractions.dll"), overwrite: true);

            var problems = HostCompatibilityChecker.CheckUnifiedAssemblies(copy.FullName, HostFacts.Default);

            Assert.Contains(problems, p => p.Message.StartsWith($"Microsoft.Extensions.Logging.Abstractions {newer.GetName().Version} is above the host's 8.0.0.0 (minorMatchOrLower)", StringComparison.Ordinal)
                && p.Message.Contains("Microsoft.Extensions.Logging.Abstractions.dll itself", StringComparison.Ordinal));
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public void CheckFunctionMetadata_NestedQueueSettingOrNoConnection_Fails()
    {
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            var folder = Directory.CreateDirectory(System.IO.Path.Combine(copy.FullName, "Doctored"));
            File.WriteAllText(System.IO.Path.Combine(folder.FullName, "function.json"), """
                {"bindings":[{"type":"queueTrigger","queueName":"%Queues:Input%","name":"message"}],
                 "scriptFile":"../bin/FunctionApp.dll","entryPoint":"X.Y.Run"}
                """);

            var problems = HostCompatibilityChecker.CheckFunctionMetadata(copy.FullName).Where(p => p.Message.StartsWith("Doctored/", StringComparison.Ordinal)).ToList();

            Assert.Contains(problems, p => p.Message.Contains("nested setting", StringComparison.Ordinal));
            Assert.Contains(problems, p => p.Message.Contains("names no connection", StringComparison.Ordinal));
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public void CheckFunctionMetadata_FunctionWithoutFunctionJson_Fails()
    {
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            Directory.Delete(System.IO.Path.Combine(copy.FullName, "Verify"), recursive: true);

            var problems = HostCompatibilityChecker.CheckFunctionMetadata(copy.FullName);

            Assert.Contains(problems, p => p.Message == "[FunctionName(\"Verify\")] in FunctionApp.dll has no Verify/function.json.");
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    private static string Describe(IReadOnlyList<CompatibilityProblem> problems) =>
        $"The Functions host would refuse this build ({AppBuildOutput.Path}):{Environment.NewLine}{string.Join(Environment.NewLine, problems)}";
}
