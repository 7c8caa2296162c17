using FunctionApp.Tests.Hosting;
using FunctionApp.Tests.Isolated;

namespace FunctionApp.Tests.Audit;

/// <summary>
/// Each app, started as production starts it (its own host, its own process), refuses to run in Azure with the audit
/// store off: the rule is the options validator's, and only a real start shows the apps run it.
/// </summary>
public sealed class AuditStartupTests
{
    private const string Refusal = "Audit:Disabled is set, but this is Azure";

    // App Service and Functions set it on every instance; the validators read it from the process environment.
    private static readonly Dictionary<string, string?> InAzure = new(StringComparer.Ordinal) { ["WEBSITE_INSTANCE_ID"] = "audit-startup-test" };

    [Fact]
    public async Task Start_IsolatedAppInAzureWithTheStoreOff_RefusesToStartNamingTheSetting()
    {
        // Arrange: the local sample, no storage, so the development switch Audit:Disabled is on.
        var settings = IsolatedAppHost.Settings(storage: null);
        Assert.Equal("true", settings["Audit:Disabled"]);

        // Act
        var refused = await Assert.ThrowsAnyAsync<Exception>(() => IsolatedAppHost.StartAsync(settings, TimeSpan.FromSeconds(60), InAzure));

        // Assert
        Assert.Contains("was not ready (exited", refused.Message, StringComparison.Ordinal);
        Assert.Contains(Refusal, refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_InProcessAppInAzureWithTheStoreOff_RefusesToStartNamingTheSetting()
    {
        // Arrange
        var environment = new Dictionary<string, string>(StringComparer.Ordinal) { ["Audit__Disabled"] = "true", ["WEBSITE_INSTANCE_ID"] = "audit-startup-test" };

        // Act
        await using var host = LocalHostProcess.Start(TestKit.AppBuildOutput.Path, environment);
        var exitCode = await host.ExitCodeAsync(TimeSpan.FromSeconds(60));

        // Assert
        Assert.NotEqual(0, exitCode);
        Assert.Contains(Refusal, host.Output + host.Error, StringComparison.Ordinal);
    }
}
