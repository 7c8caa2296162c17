using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Functions;

/// <summary>The app's Startup in the WebJobs host, configured for Key Vault, its SecretClient talking to the fake vault.</summary>
public sealed class KeyVaultHostTests
{
    private static readonly Vector OneWidget = Vector.Load("one-widget");

    [Fact]
    public async Task SignThenVerify_VaultConfiguredInAzure_RoundTripsUnderTheSecretVersion()
    {
        // Arrange
        await using var server = await FakeKeyVaultServer.StartAsync(() => DateTimeOffset.UtcNow);
        var version = server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        await using var host = await KeyVaultHarness.StartHttpHostAsync(server, typeof(SignFunction), typeof(VerifyFunction));

        // Act
        var signed = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", OneWidget.Input));
        var request = TestRequests.Post("/api/verify", OneWidget.Input);
        request.Headers[SignatureHeaders.Signature] = signed.Json.Value<string>("signature");
        request.Headers[SignatureHeaders.KeyId] = signed.Json.Value<string>("keyId");
        var verified = await host.InvokeHttpAsync(VerifyFunction.Name, request);

        // Assert
        Assert.Equal(200, signed.Status);
        Assert.Equal(version, signed.Header(SignatureHeaders.KeyId));
        Assert.Equal(OneWidget.SignatureHex, signed.Json.Value<string>("signature"));
        Assert.Equal(200, verified.Status);
        Assert.True(verified.Json.Value<bool>("valid"));
        Assert.Equal(version, verified.Json.Value<string>("keyId"));
        Assert.IsType<KeyVaultReceiverKeySource>(host.GetService<IReceiverKeySource>());
    }

    [Fact]
    public async Task Sign_ColdStartWithVaultDown_Answers503WithRetryAfter()
    {
        // Arrange
        await using var server = await FakeKeyVaultServer.StartAsync(() => DateTimeOffset.UtcNow);
        server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        server.Fault = FakeKeyVaultFault.ServerError;
        await using var host = await KeyVaultHarness.StartHttpHostAsync(server, typeof(SignFunction), typeof(VerifyFunction));

        // Act
        var response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", OneWidget.Input));

        // Assert
        Assert.Equal(503, response.Status);
        Assert.Equal(ProblemTypes.KeyUnavailable, response.Json.Value<string>("type"));
        Assert.Equal("5", response.Header("Retry-After"));
    }

    [Fact]
    public async Task StartAsync_InAzureWithoutVault_FailsNamingKeyVaultVaultUri()
    {
        var settings = new Dictionary<string, string?> { ["Signing:LocalKey"] = Vector.KeyBase64 };

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => FunctionsTestHost.StartAsync(
            settings, services => services.AddSingleton<IAzureEnvironment>(new FixedAzureEnvironment(true)), typeof(SignFunction)));

        Assert.Contains("KeyVault:VaultUri", error.Message, StringComparison.Ordinal);
    }
}
