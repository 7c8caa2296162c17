using System.Text.Json;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Tooling;

/// <summary>package.json's scripts: npm start runs the start script (the isolated app), npm run start:inprocess runs it for the in-process app, npm run token prints a local token, npm run dashboard and npm run otlp-sink run their scripts; every Azurite start has telemetry off.</summary>
public sealed class PackageJsonTests
{
    [Theory]
    [InlineData("start", "node scripts/start.mjs")]
    [InlineData("start:inprocess", "node scripts/start.mjs --inprocess")]
    [InlineData("token", "node scripts/token.mjs")]
    [InlineData("azurite", "azurite --silent --disableTelemetry ")]
    [InlineData("dashboard", "node scripts/dashboard.mjs")]
    [InlineData("otlp-sink", "node scripts/otlp-sink.mjs")]
    public void Script_Name_RunsTheExpectedCommand(string name, string expectedPrefix)
    {
        // Arrange
        using var package = JsonDocument.Parse(RepoFiles.ReadAllText("package.json"));

        // Act
        var script = package.RootElement.GetProperty("scripts").GetProperty(name).GetString();

        // Assert
        Assert.NotNull(script);
        Assert.StartsWith(expectedPrefix, script, StringComparison.Ordinal);
    }
}
