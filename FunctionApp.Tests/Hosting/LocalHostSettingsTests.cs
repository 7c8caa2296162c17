namespace FunctionApp.Tests.Hosting;

/// <summary>
/// tools/LocalHost's settings as func start assembles them: local.settings.json <c>Values</c> reach the host as
/// environment variables, where <c>A__B</c> is the setting <c>A:B</c>, so a Value can override host.json.
/// </summary>
public sealed class LocalHostSettingsTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("localhost-settings-").FullName;

    [Fact]
    public void Read_ValueSpelledWithDoubleUnderscores_OverridesHostJsonAsTheEnvironmentWould()
    {
        // Arrange
        File.WriteAllText(Path.Combine(_root, "host.json"), """{ "version": "2.0", "extensions": { "http": { "routePrefix": "api" } } }""");
        var local = Path.Combine(_root, "local.settings.json");
        File.WriteAllText(local, """{ "Values": { "AzureFunctionsJobHost__extensions__http__maxConcurrentRequests": "8" } }""");

        // Act
        var settings = LocalHost.AppSettings.Read(_root, local);

        // Assert
        Assert.Equal("8", settings["AzureFunctionsJobHost:extensions:http:maxConcurrentRequests"]);
        Assert.Equal("api", settings["AzureFunctionsJobHost:extensions:http:routePrefix"]);
    }

    public void Dispose() => Directory.Delete(_root, recursive: true);
}
