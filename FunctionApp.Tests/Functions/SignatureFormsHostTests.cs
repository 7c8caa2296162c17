using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Options;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// Through the in-process app's own Startup: <c>Http:SignatureForms</c> and <c>Queues:SignatureForms</c> are read
/// and validated at start-up, and decide what <c>/api/sign</c> and <c>SignQueue</c> make.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class SignatureFormsHostTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    [Theory]
    [InlineData("Http:SignatureForms", "3")]
    [InlineData("Http:SignatureForms", "Plain,Webhook")]
    [InlineData("Queues:SignatureForms", "-1")]
    public async Task StartAsync_SignatureFormsNotOneForm_FailsNamingTheSetting(string setting, string value)
    {
        // Arrange
        var settings = SignHostFixture.Settings();
        settings[setting] = value;

        // Act
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => FunctionsTestHost.StartAsync(settings, typeof(SignFunction)));

        // Assert
        Assert.Contains(setting + " must be Plain, Webhook or Both.", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Http:SignatureForms")]
    [InlineData("Queues:SignatureForms")]
    public async Task StartAsync_SignatureFormsUnknownName_FailsNamingTheSetting(string setting)
    {
        // Arrange
        var settings = SignHostFixture.Settings();
        settings[setting] = "hmac";

        // Act
        var error = await Assert.ThrowsAnyAsync<InvalidOperationException>(() => FunctionsTestHost.StartAsync(settings, typeof(SignFunction)));

        // Assert
        Assert.Contains($"'{setting}'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_HttpSettingWebhook_AnswersOnlyTheWebhookFormAndRefusesPlain()
    {
        // Arrange
        var settings = SignHostFixture.Settings();
        settings[HttpOptions.SignatureFormsSetting] = "Webhook";
        await using var host = await FunctionsTestHost.StartAsync(settings, typeof(SignFunction));
        var vector = Vector.Load("one-widget");

        // Act
        var signed = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input));
        var refused = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input, query: "?forms=plain"));

        // Assert
        Assert.Equal(200, signed.Status);
        Assert.False(signed.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.Null(signed.Json["signature"]);
        var id = signed.Header(StandardWebhooks.IdHeader);
        var timestamp = signed.Header(StandardWebhooks.TimestampHeader);
        Assert.Equal(DerivedWebhookId.WebhookSignature(Vector.Key, id, timestamp, vector.Canonical), signed.Header(StandardWebhooks.SignatureHeader));
        Assert.Equal(400, refused.Status);
        Assert.Contains("Query parameter 'forms'", (string?)refused.Json["detail"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_QueueSettingPlain_ForwardsOnlyThePlainSignature()
    {
        // Arrange
        await using var host = await QueueFunctionHost.StartAsync(azurite, output, appSettings: new Dictionary<string, string?> { ["Queues:SignatureForms"] = "Plain" });
        var vector = Vector.Load("one-widget");

        // Act
        var id = await host.EnqueueAsync(vector.Input);
        var forwarded = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(60)));

        // Assert
        Assert.Equal(id, (string?)forwarded["messageId"]);
        Assert.Equal(vector.SignatureHex, (string?)forwarded["signature"]);
        Assert.Null(forwarded["webhook"]);
    }
}
