using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated app's host.json: the in-process app's (repo root) with the host in OpenTelemetry mode, and without the
/// Application Insights SDK's sampling, which that mode does not use.
/// </summary>
public sealed class IsolatedHostJsonTests
{
    [Fact]
    public void HostJson_Isolated_IsTheRootOneInOpenTelemetryMode()
    {
        // Arrange
        var root = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "host.json")));
        var isolated = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "host.json")));

        // Act
        var mode = (string?)isolated["telemetryMode"];
        isolated.Remove("telemetryMode");
        ((JObject)root["logging"]!).Remove("applicationInsights");

        // Assert
        Assert.Equal("OpenTelemetry", mode);
        Assert.True(JToken.DeepEquals(root, isolated), $"FunctionApp.Isolated/host.json differs from host.json beyond telemetry:\n{isolated}");
        Assert.Null(root["telemetryMode"]);
    }
}
