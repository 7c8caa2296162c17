using FunctionApp.Functions;
using FunctionApp.Tests.Infrastructure;
using Microsoft.Extensions.Options;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Functions;

/// <summary>local.settings.sample.json is what a developer copies for <c>func start</c>: it must start the app as it is.</summary>
public sealed class LocalSettingsSampleTests
{
    [Fact]
    public async Task Sample_ValuesAsAppSettingsUnderFuncStart_StartTheHostAndSign()
    {
        // Arrange: func start adds AZURE_FUNCTIONS_ENVIRONMENT=Development to the sample's values (local.settings.json cannot set it).
        var settings = SampleValues();
        Assert.Equal("dotnet", settings["FUNCTIONS_WORKER_RUNTIME"]);
        Assert.Equal("1", settings["FUNCTIONS_INPROC_NET8_ENABLED"]);
        Assert.Equal("UseDevelopmentStorage=true", settings["AzureWebJobsStorage"]);
        settings["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        var vector = Vector.Load("one-widget");

        // Act
        await using var host = await FunctionsTestHost.StartAsync(settings, typeof(SignFunction));
        var response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input));

        // Assert: signed with the sample's development key, reported as "local".
        Assert.Equal(200, response.Status);
        Assert.Equal("local", (string?)response.Json["keyId"]);
        Assert.Equal(vector.CanonicalLength, (long?)response.Json["canonicalLength"]);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("Production")]
    [InlineData("Staging")]
    public async Task Sample_PublicDevelopmentKeyOutsideDevelopmentAttack_RefusesToStart(string? environment)
    {
        // Arrange: the same values on a container, AKS or a VM – not App Service, not func start.
        var settings = SampleValues();
        settings["AZURE_FUNCTIONS_ENVIRONMENT"] = environment;

        // Act
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => FunctionsTestHost.StartAsync(settings, typeof(SignFunction)));

        // Assert: the message names what to set, never the key.
        Assert.Contains("KeyVault:VaultUri", error.Message, StringComparison.Ordinal);
        Assert.Contains("AZURE_FUNCTIONS_ENVIRONMENT=Development", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(settings["Signing:LocalKey"]!, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Sample_BodyLimits_HostAndAppAgree()
    {
        // Arrange
        var settings = SampleValues();

        // Assert: the host refuses bodies over the limit before the in-process binding copies them; the app names its own.
        Assert.Equal("16777216", settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"]);
        Assert.Equal(settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"], settings["Http:MaxRequestBodyBytes"]);
        Assert.False(settings.ContainsKey("AZURE_FUNCTIONS_ENVIRONMENT"));
        Assert.False(settings.ContainsKey("Signing:MaxRequestBodyBytes"));
    }

    private static Dictionary<string, string?> SampleValues()
    {
        var sample = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "local.settings.sample.json")));
        return ((JObject)sample["Values"]!).Properties().ToDictionary(p => p.Name, p => (string?)p.Value);
    }
}
