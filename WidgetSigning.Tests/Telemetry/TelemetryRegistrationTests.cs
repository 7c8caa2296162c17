using System.Net;
using System.Reflection;
using Azure.Core;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Tests.Telemetry;

/// <summary>AddWidgetSigningTelemetry: the sampler, the exporters it turns on, and the Azure Monitor exporter's credential.</summary>
[Collection(EnvironmentCollection.Name)]
public sealed class TelemetryRegistrationTests
{
    private const string ClientId = "3f1c2b7a-0000-4000-8000-0000000000aa";

    [Fact]
    public void AddWidgetSigningTelemetry_WithAzureMonitorExporter_RecordsEveryTrace()
    {
        // Arrange: the Azure Monitor exporter on, aimed at a closed port: no sampler but ours decides (the Azure Monitor
        // distro's default keeps about 5 traces a second).
        using var harness = new TelemetryHarness(new Dictionary<string, string?>
        {
            [TelemetryServiceCollectionExtensions.ConnectionStringSetting] = "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=http://127.0.0.1:1/",
            [AzureMonitorCredential.Setting] = $"Authorization=AAD;ClientId={ClientId}",
        });

        // Act: 200 signing spans in well under a second.
        var recorded = 0;
        for (var i = 0; i < 200; i++)
        {
            using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.SignSpan);
            recorded += span?.Recorded == true ? 1 : 0;
        }

        // Assert
        Assert.Equal(200, recorded);
    }

    [Theory]
    [InlineData("traceidratio", "0", 0)]
    [InlineData("always_off", null, 0)]
    [InlineData("always_on", null, 50)]
    public void AddWidgetSigningTelemetry_StandardSamplerSetting_IsHonoured(string sampler, string? argument, int expected)
    {
        // Arrange
        using var harness = new TelemetryHarness(new Dictionary<string, string?> { [TracesSampler.SamplerSetting] = sampler, [TracesSampler.ArgumentSetting] = argument });

        // Act
        var recorded = 0;
        for (var i = 0; i < 50; i++)
        {
            using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.SignSpan);
            recorded += span?.Recorded == true ? 1 : 0;
        }

        // Assert
        Assert.Equal(expected, recorded);
    }

    [Theory]
    [InlineData(TracesSampler.SamplerSetting, "jaeger_remote")]
    [InlineData(TracesSampler.ArgumentSetting, "1.5")]
    public void AddWidgetSigningTelemetry_InvalidSamplerSetting_FailsNamingIt(string setting, string value)
    {
        // Arrange
        var settings = new Dictionary<string, string?> { [TracesSampler.SamplerSetting] = "traceidratio", [setting] = value };

        // Act
        var error = Assert.Throws<InvalidOperationException>(() => new TelemetryHarness(settings));

        // Assert
        Assert.Contains(setting, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("Authorization=InstrumentationKey")]
    [InlineData("Authorization=AAD;ClientId=not-a-guid")]
    public void AddWidgetSigningTelemetry_ConnectionStringWithoutEntraAuthentication_FailsNamingTheSetting(string? authentication)
    {
        // Arrange: local (instrumentation key) authentication is disabled on the component; telemetry sent so is lost.
        var settings = new Dictionary<string, string?>
        {
            [TelemetryServiceCollectionExtensions.ConnectionStringSetting] = "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=http://127.0.0.1:1/",
            [AzureMonitorCredential.Setting] = authentication,
        };

        // Act
        var error = Assert.Throws<InvalidOperationException>(() => new TelemetryHarness(settings));

        // Assert
        Assert.Contains(AzureMonitorCredential.Setting, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AzureMonitorCredential_UserAssigned_AsksTheManagedIdentityEndpointForThatClientId()
    {
        // Arrange: App Service's managed identity endpoint, played by a loopback listener that records the request.
        using var endpoint = new HttpListener();
        var port = FreePort();
        endpoint.Prefixes.Add($"http://127.0.0.1:{port}/");
        endpoint.Start();
        var request = endpoint.GetContextAsync();
        using var environment = new EnvironmentScope(new Dictionary<string, string?>
        {
            ["IDENTITY_ENDPOINT"] = $"http://127.0.0.1:{port}/msi/token",
            ["IDENTITY_HEADER"] = "test-header",
            ["MSI_ENDPOINT"] = null,
            ["IMDS_ENDPOINT"] = null,
        });
        var credential = AzureMonitorCredential.From($"Authorization=AAD;ClientId={ClientId}");

        // Act
        var token = credential.GetTokenAsync(new TokenRequestContext(["https://monitor.azure.com//.default"]), CancellationToken.None).AsTask();
        var context = await request.WaitAsync(TimeSpan.FromSeconds(30));
        var query = context.Request.QueryString;
        context.Response.StatusCode = 400;
        context.Response.Close();
        await Assert.ThrowsAnyAsync<Exception>(() => token);

        // Assert
        Assert.Equal(ClientId, query["client_id"]);
        Assert.Equal("https://monitor.azure.com", query["resource"]?.TrimEnd('/'));
        Assert.Equal("test-header", context.Request.Headers["X-IDENTITY-HEADER"]);
    }

    [Fact]
    public void AddWidgetSigningTelemetry_NoEndpointSettings_AddsNoExporter()
    {
        // Arrange: the settings passed and the IConfiguration in DI (UseOtlpExporter reads the latter) both empty.
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>()).Build();
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddSingleton<IConfiguration>(configuration);

        // Act: the providers as the host builds them.
        services.AddOpenTelemetry().AddWidgetSigningTelemetry(configuration);
        using var provider = services.BuildServiceProvider();
        var tracerProvider = provider.GetRequiredService<TracerProvider>();
        var meterProvider = provider.GetRequiredService<MeterProvider>();
        var loggerProvider = provider.GetRequiredService<LoggerProvider>();

        // Assert: exporters live inside the built providers (their processors and readers), not in DI; each has none
        // (the tracer's one processor is the one that reclassifies expected storage answers, which exports nothing).
        Assert.Equal("ExpectedAnswerProcessor", Internal(tracerProvider, "Processor")?.GetType().Name);
        Assert.Null(Internal(meterProvider, "Reader"));
        Assert.Null(Internal(loggerProvider, "Processor"));
    }

    // The SDK providers keep their processor chain and metric reader in internal members; reflection is the only way in.
    private static object? Internal(object provider, string name)
    {
        const BindingFlags Flags = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public;
        var type = provider.GetType();
        if (type.GetProperty(name, Flags) is { } property)
        {
            return property.GetValue(provider);
        }

        var field = type.GetField(name, Flags) ?? throw new InvalidOperationException($"{type.FullName} has no member {name}: the OpenTelemetry SDK changed.");
        return field.GetValue(provider);
    }

    private static int FreePort()
    {
        using var socket = new System.Net.Sockets.TcpListener(IPAddress.Loopback, 0);
        socket.Start();
        return ((IPEndPoint)socket.LocalEndpoint).Port;
    }
}
