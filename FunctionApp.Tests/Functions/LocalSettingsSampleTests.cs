using FunctionApp.Functions;
using FunctionApp.Tests.Infrastructure;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Functions;

/// <summary>local.settings.sample.json is what a developer copies for <c>func start</c>: it must start the app as it is.</summary>
public sealed class LocalSettingsSampleTests
{
    [Fact]
    public async Task Sample_ValuesAsAppSettings_StartTheHostAndSign()
    {
        // Arrange
        var sample = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "local.settings.sample.json")));
        var settings = ((JObject)sample["Values"]!).Properties().ToDictionary(p => p.Name, p => (string?)p.Value);
        Assert.Equal("dotnet", settings["FUNCTIONS_WORKER_RUNTIME"]);
        Assert.Equal("1", settings["FUNCTIONS_INPROC_NET8_ENABLED"]);
        Assert.Equal("UseDevelopmentStorage=true", settings["AzureWebJobsStorage"]);
        var vector = Vector.Load("one-widget");

        // Act
        await using var host = await FunctionsTestHost.StartAsync(settings, typeof(SignFunction));
        var response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input));

        // Assert: signed with the sample's development key, reported as "local".
        Assert.Equal(200, response.Status);
        Assert.Equal("local", (string?)response.Json["keyId"]);
        Assert.Equal(vector.CanonicalLength, (long?)response.Json["canonicalLength"]);
    }
}
