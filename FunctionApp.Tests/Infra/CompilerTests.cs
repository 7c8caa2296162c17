using System.Text.Json.Nodes;

namespace FunctionApp.Tests.Infra;

/// <summary>infra/ compiles and lints with the pinned Bicep compiler: no error, no warning, no rule turned down.</summary>
public sealed class CompilerTests
{
    [Fact]
    public void Compiler_IsThePinnedVersion()
    {
        var run = BicepCompiler.Run("--version");

        Assert.Equal(0, run.ExitCode);
        Assert.StartsWith($"Bicep CLI version {BicepCompiler.Version} ", run.Output.Trim(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(CompiledInfra.CommandData), MemberType = typeof(CompiledInfra))]
    public void Command_OnInfra_HasNoErrorsAndNoWarnings(string command)
    {
        var run = CompiledInfra.Instance.Runs[command];

        Assert.True(run.ExitCode == 0, $"bicep {command} exited {run.ExitCode}:\n{run.Error}");
        Assert.Empty(run.Diagnostics);
    }

    [Fact]
    public void ParameterFiles_OnePerSupportedAppAndPlan_AllCompileAndEvaluate()
    {
        var compiled = CompiledInfra.Instance;

        Assert.Equal(["main.elastic-premium.bicepparam", "main.flex-consumption.bicepparam"], CompiledInfra.ParameterFileNames);
        Assert.Equal(CompiledInfra.ParameterFileNames, compiled.Snapshots.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(CompiledInfra.ParameterFileNames, compiled.ParameterFiles.Keys.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void BicepConfig_KeepsTheSecurityRulesAsErrors()
    {
        var rules = JsonNode.Parse(RepoFiles.ReadAllText("infra", "bicepconfig.json"))!["analyzers"]!["core"]!["rules"]!.AsObject();

        // Only the API-age rule is a warning (CI fails on warnings too); every other rule stays an error.
        Assert.All(rules, r => Assert.Equal(r.Key == "use-recent-api-versions" ? "warning" : "error", (string?)r.Value!["level"]));
        Assert.Contains("secure-secrets-in-params", rules.Select(r => r.Key));
        Assert.Contains("outputs-should-not-contain-secrets", rules.Select(r => r.Key));
    }
}
