using System.Reflection;
using HostCompatibility;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// The Azure Functions v4 in-process host's start-up rules, applied to the app's real build output. The rules and
/// versions come from the host's public source, github.com/Azure/azure-functions-host, branch in-proc (the .NET 8 line,
/// 4.8xx) at commit 95e0b27a6b1c405e32a560999a52e16a3573f255: src/WebJobs.Script/extensionrequirements.json checked by
/// ScriptStartupTypeLocator.ValidateExtensionRequirements (src/WebJobs.Script/DependencyInjection/ScriptStartupTypeLocator.cs),
/// src/WebJobs.Script/runtimeassemblies-net8.json (the file src/WebJobs.Script/Description/DotNet/RuntimeAssembliesInfo.cs
/// picks on .NET 8) with the policies and deps-file adjustment of
/// src/WebJobs.Script/Description/DotNet/FunctionAssemblyLoadContext.cs, versions from the line's own dependency baseline
/// and, for System.Memory.Data, azure-functions-host#10610/#10611 (8.0.0.1 from host 4.837); tools/HostCompatibility/host-facts.json
/// holds them and says where each version was read.
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

            Assert.Contains(problems, p => p.Message.StartsWith($"Microsoft.Extensions.Logging.Abstractions {newer.GetName().Version} is above the 8.0.0.0 host 4.837.0 ships (minorMatchOrLower", StringComparison.Ordinal)
                && p.Message.Contains("Microsoft.Extensions.Logging.Abstractions.dll itself", StringComparison.Ordinal));
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public void HostFacts_Default_AreTheInProcNet8LineFrom4837()
    {
        var facts = HostFacts.Default;
        var unified = facts.UnifiedAssemblies.ToDictionary(a => a.Name);

        // The in-proc branch and the first host whose System.Memory.Data is 8.0.0.1.
        Assert.Equal(("95e0b27a6b1c405e32a560999a52e16a3573f255", "4.837.0"), (facts.HostCommit, facts.HostVersion));
        Assert.Equal(("minorMatchOrLower", "8.0.0.1"), (unified["System.Memory.Data"].ResolutionPolicy, unified["System.Memory.Data"].HostVersion));
        Assert.Equal("4.837.0.0", unified["Microsoft.Azure.WebJobs.Script"].HostVersion);

        // runtimeassemblies-net8.json, not runtimeassemblies.json: entries only the former unifies, none only the latter has.
        Assert.Equal("8.0.0.0", unified["Microsoft.Extensions.Diagnostics.Abstractions"].HostVersion);
        Assert.DoesNotContain("OpenTelemetry", unified.Keys);
        Assert.Contains("Azure.Core", facts.PrivateAssemblies);
        Assert.Contains("Microsoft.IdentityModel.Abstractions", facts.PrivateAssemblies);
        Assert.Equal(329, unified.Count);
        Assert.Equal(87, facts.PrivateAssemblies.Count);
    }

    [Fact]
    public void HostFacts_Default_EveryUnifiedAssemblyHasAHostVersionAndItsSource()
    {
        var unestablished = HostFacts.Default.UnifiedAssemblies.Where(a => a.HostVersion is null || string.IsNullOrWhiteSpace(a.Source)).Select(a => a.Name).ToList();

        Assert.Empty(unestablished);
    }

    [Fact]
    public void UnverifiableUnifiedAssemblies_BuildOutput_NoneSoTheLocalHostWarnsOfNothing()
    {
        var unverifiable = HostCompatibilityChecker.UnverifiableUnifiedAssemblies(AppBuildOutput.Path, HostFacts.Default);

        Assert.True(unverifiable.Count == 0, string.Join(Environment.NewLine, unverifiable));
    }

    [Fact]
    public void UnverifiableUnifiedAssemblies_FactsLeavingAVersionOpen_WarnOnceSayingNothingIsNeededToRunLocally()
    {
        // Arrange: the shipped facts with System.Memory.Data's version left open, as they were before host 4.837 was read.
        var open = HostFacts.Default.UnifiedAssemblies.Select(a => a.Name == "System.Memory.Data" ? a with { HostVersion = null } : a).ToList();
        var facts = new HostFacts
        {
            HostCommit = HostFacts.Default.HostCommit,
            HostVersion = HostFacts.Default.HostVersion,
            MinimumFunctionsSdkVersion = HostFacts.Default.MinimumFunctionsSdkVersion,
            ExtensionRequirements = HostFacts.Default.ExtensionRequirements,
            UnifiedAssemblies = open,
            PrivateAssemblies = HostFacts.Default.PrivateAssemblies,
        };

        // Act
        var unverifiable = HostCompatibilityChecker.UnverifiableUnifiedAssemblies(AppBuildOutput.Path, facts);

        // Assert: one line per version asked for (8.0.0.1 by the app's assemblies and deps file, 1.0.2.0 by the storage
        // SDKs, 6.0.0.0 by the tables SDK), each saying what to do, and none of it a refusal.
        Assert.Equal(["System.Memory.Data 1.0.2.0", "System.Memory.Data 6.0.0.0", "System.Memory.Data 8.0.0.1"], unverifiable.Select(p => string.Join(' ', p.Message.Split(' ')[..2])));
        Assert.All(unverifiable, p => Assert.Equal("unified-assembly-unverifiable", p.Rule));
        Assert.All(unverifiable, p => Assert.EndsWith("Nothing to do to run locally; before deploying, establish that version from the host's dependency baseline and set its hostVersion.", p.Message, StringComparison.Ordinal));
        Assert.Empty(HostCompatibilityChecker.CheckUnifiedAssemblies(AppBuildOutput.Path, facts));
    }

    [Fact]
    public void BuildOutput_SystemMemoryData_PreservedInBinAtTheVersionTheAppAsksFor()
    {
        // Arrange
        var dll = System.IO.Path.Combine(AppBuildOutput.Bin, "System.Memory.Data.dll");
        Assert.True(File.Exists(dll), $"{dll} is missing: FunctionApp.csproj must keep it (<FunctionsPreservedDependencies Include=\"System.Memory.Data.dll\" />)");

        // Act
        var version = AssemblyName.GetAssemblyName(dll).Version;
        var recorded = FunctionDepsFile.Read(AppBuildOutput.Bin).TryGetAsset("System.Memory.Data", out var asset) ? asset.AssemblyVersion : null;
        var asked = ReferencedVersion(System.IO.Path.Combine(AppBuildOutput.Bin, "FunctionApp.dll"), "System.Memory.Data");

        // Assert: the copy older hosts load is the one function.deps.json raises their requests to, and what the app asks for.
        Assert.Equal(new Version(8, 0, 0, 1), version);
        Assert.Equal(version, recorded);
        Assert.Equal(version, asked);
    }

    [Fact]
    public void BuildOutput_Bin_HoldsNoHostAssemblyButThePreservedOne()
    {
        // What the Functions SDK strips from bin/ must stay stripped: anything that rewrites the app's build output (a
        // build that skips the SDK's clean step, a tool copying into it) changes what these tests check.
        var unified = HostFacts.Default.UnifiedAssemblies.Select(a => a.Name).ToHashSet(StringComparer.OrdinalIgnoreCase);

        var found = Directory.EnumerateFiles(AppBuildOutput.Bin, "*.dll")
            .Select(System.IO.Path.GetFileNameWithoutExtension)
            .Where(name => unified.Contains(name!) && name != "System.Memory.Data")
            .Order(StringComparer.Ordinal)
            .ToList();

        Assert.True(found.Count == 0, $"{AppBuildOutput.Bin} holds assemblies the host supplies: {string.Join(", ", found)}; rebuild the app (dotnet build FunctionApp -c {AppBuildOutput.Configuration}) and find what wrote them.");
    }

    [Fact]
    public void CheckUnifiedAssemblies_SystemMemoryDataAboveTheHostsInBin_Fails()
    {
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            DoctoredAssembly.Write(System.IO.Path.Combine(copy.FullName, "bin"), "System.Memory.Data", "9.0.0.0");

            var problems = HostCompatibilityChecker.CheckUnifiedAssemblies(copy.FullName, HostFacts.Default);

            // (The doctored assembly itself references this test process's System.Private.CoreLib, a problem of its own.)
            var problem = Assert.Single(problems, p => p.Message.StartsWith("System.Memory.Data ", StringComparison.Ordinal));
            Assert.Equal(
                "System.Memory.Data 9.0.0.0 is above the 8.0.0.1 host 4.837.0 ships (minorMatchOrLower: the host fails to load it); asked for by System.Memory.Data.dll itself. Lower the package that asks for it.",
                problem.Message);
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public void CheckUnifiedAssemblies_DepsFileRecordsAUnifiedAssemblyAboveTheHosts_Fails()
    {
        // The host raises every request for System.Memory.Data to the version function.deps.json records, whatever the
        // assemblies themselves reference.
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            var deps = System.IO.Path.Combine(copy.FullName, "bin", FunctionDepsFile.FileName);
            var text = File.ReadAllText(deps);
            var recorded = "\"lib/net8.0/System.Memory.Data.dll\": {\n            \"assemblyVersion\": \"8.0.0.1\"";
            Assert.Contains(recorded, text, StringComparison.Ordinal);
            File.WriteAllText(deps, text.Replace(recorded, recorded.Replace("8.0.0.1", "9.0.0.0", StringComparison.Ordinal), StringComparison.Ordinal));

            var problems = HostCompatibilityChecker.CheckUnifiedAssemblies(copy.FullName, HostFacts.Default);

            var problem = Assert.Single(problems);
            Assert.StartsWith("System.Memory.Data 9.0.0.0 is above the 8.0.0.1 host 4.837.0 ships (minorMatchOrLower", problem.Message, StringComparison.Ordinal);
            Assert.Contains("asked for by function.deps.json (System.Memory.Data/8.0.1)", problem.Message, StringComparison.Ordinal);
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Theory]
    [InlineData("Microsoft.NET.Sdk.Functions.Generator-4.3.0", true)]
    [InlineData("Microsoft.NET.Sdk.Functions.Generator-4.3.9+abc", true)]
    [InlineData("Microsoft.NET.Sdk.Functions.Generator-4.4.0", false)]
    [InlineData("Some.Other.Generator-9.9.9", true)]
    [InlineData(null, true)]
    public void CheckFunctionsSdk_DoctoredGeneratedBy_FailsBelow440OrUnknown(string? generatedBy, bool refused)
    {
        // Arrange: the build output's own Sign/function.json, its generatedBy changed (or removed).
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            var path = System.IO.Path.Combine(copy.FullName, "Sign", "function.json");
            var json = Newtonsoft.Json.Linq.JObject.Parse(File.ReadAllText(path));
            Assert.NotNull(json["generatedBy"]);
            if (generatedBy is null)
            {
                json.Remove("generatedBy");
            }
            else
            {
                json["generatedBy"] = generatedBy;
            }

            File.WriteAllText(path, json.ToString());

            // Act
            var problems = HostCompatibilityChecker.CheckFunctionsSdk(copy.FullName, HostFacts.Default);

            // Assert: only the doctored function is named.
            if (refused)
            {
                var problem = Assert.Single(problems);
                Assert.Equal("functions-sdk", problem.Rule);
                Assert.StartsWith("Sign/function.json was generated by '" + (generatedBy ?? "(unknown)") + "'", problem.Message, StringComparison.Ordinal);
            }
            else
            {
                Assert.True(problems.Count == 0, Describe(problems));
            }
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

    /// <summary>The version <paramref name="file"/> references <paramref name="name"/> at, read from its metadata without loading it.</summary>
    private static Version? ReferencedVersion(string file, string name)
    {
        using var stream = File.OpenRead(file);
        using var pe = new System.Reflection.PortableExecutable.PEReader(stream);
        var metadata = System.Reflection.Metadata.PEReaderExtensions.GetMetadataReader(pe);
        return metadata.AssemblyReferences.Select(metadata.GetAssemblyReference).Where(r => metadata.GetString(r.Name) == name).Select(r => r.Version).SingleOrDefault();
    }

    private static string Describe(IReadOnlyList<CompatibilityProblem> problems) =>
        $"The Functions host would refuse this build ({AppBuildOutput.Path}):{Environment.NewLine}{string.Join(Environment.NewLine, problems)}";
}
