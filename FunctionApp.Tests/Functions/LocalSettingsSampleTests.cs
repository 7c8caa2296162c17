using System.Globalization;
using FunctionApp.Functions;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Options;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;

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
        var thrown = await Assert.ThrowsAnyAsync<Exception>(() => FunctionsTestHost.StartAsync(settings, typeof(SignFunction)));

        // Assert: refused for the key (and for the sample's Auth:Disabled, also development-only); the message names what
        // to set, never the key.
        var error = thrown is AggregateException all ? all.InnerExceptions.OfType<OptionsValidationException>().First(e => e.Message.Contains("KeyVault", StringComparison.Ordinal)) : thrown;
        Assert.IsType<OptionsValidationException>(error);
        Assert.Contains("KeyVault:VaultUri", error.Message, StringComparison.Ordinal);
        Assert.Contains("AZURE_FUNCTIONS_ENVIRONMENT=Development", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(settings["Signing:LocalKey"]!, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("local.settings.sample.json")]
    [InlineData("FunctionApp.Isolated/local.settings.sample.json")]
    public void Sample_BodyLimits_HostLimitIsTheAppsPlusRoomForChunkFraming(string sample)
    {
        // Arrange
        var settings = SampleValues(sample);
        var app = new HttpOptions { MaxRequestBodyBytes = int.Parse(settings["Http:MaxRequestBodyBytes"]!, CultureInfo.InvariantCulture) };

        // Assert: the host refuses bodies just over the limit before the in-process binding copies them, but leaves room
        // for the chunk framing its Kestrel counts with the data; the app names its own limit.
        Assert.Equal("16908288", settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"]);
        Assert.Equal(app.HostBodyLimit.ToString(CultureInfo.InvariantCulture), settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"]);
        Assert.False(settings.ContainsKey("AZURE_FUNCTIONS_ENVIRONMENT"));
        Assert.False(settings.ContainsKey("Signing:MaxRequestBodyBytes"));
    }

    private static Dictionary<string, string?> SampleValues(string file = "local.settings.sample.json")
    {
        var sample = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, file)));
        return ((JObject)sample["Values"]!).Properties().ToDictionary(p => p.Name, p => (string?)p.Value);
    }
}
