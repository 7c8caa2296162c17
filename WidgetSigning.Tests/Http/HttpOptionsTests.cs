using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using WidgetSigning.Envelopes;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Http;

/// <summary>The limits users set are validated at start-up, and each error names its setting.</summary>
public sealed class HttpOptionsTests
{
    [Theory]
    [InlineData("Http:MaxRequestBodyBytes", "0", "Http:MaxRequestBodyBytes")]
    [InlineData("Http:MaxRequestBodyBytes", "209715200", "Http:MaxRequestBodyBytes")]
    [InlineData("Signing:MaxRequestBodyBytes", "1048576", "Http:MaxRequestBodyBytes")]
    [InlineData("Http:MaxRequestBodyBytes", "67108864", "StreamPool:MaximumStreamCapacity")]
    public void HttpOptions_InvalidSetting_FailsNamingTheSetting(string setting, string value, string named)
    {
        // Arrange
        using var provider = Build(new() { [setting] = value });

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<HttpOptions>>().Value);

        // Assert
        Assert.Contains(named, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("3")]
    [InlineData("-1")]
    [InlineData("Plain, Webhook")]
    public void HttpOptions_SignatureFormsNotOneForm_FailsNamingTheSetting(string value)
    {
        // Arrange: numbers and flag lists that bind to an enum value without a name.
        using var provider = Build(new() { [HttpOptions.SignatureFormsSetting] = value });

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<HttpOptions>>().Value);

        // Assert
        Assert.Contains("Http:SignatureForms must be Plain, Webhook or Both.", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("hmac")]
    [InlineData("plain webhook")]
    [InlineData("x-signature")]
    public void HttpOptions_SignatureFormsUnknownName_FailsNamingTheSetting(string value)
    {
        // Arrange: a value the configuration binder cannot convert fails there, naming the setting's path.
        using var provider = Build(new() { [HttpOptions.SignatureFormsSetting] = value });

        // Act
        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<IOptions<HttpOptions>>().Value);

        // Assert
        Assert.Contains("'Http:SignatureForms'", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("plain", SignatureForms.Plain)]
    [InlineData("WEBHOOK", SignatureForms.Webhook)]
    [InlineData("Both", SignatureForms.Both)]
    public void HttpOptions_SignatureFormsInAnyCase_IsRead(string value, SignatureForms expected)
    {
        // Arrange
        using var provider = Build(new() { [HttpOptions.SignatureFormsSetting] = value });

        // Act
        var forms = provider.GetRequiredService<IOptions<HttpOptions>>().Value.SignatureForms;

        // Assert
        Assert.Equal(expected, forms);
    }

    [Theory]
    [InlineData("Envelopes:MaxWidgets", "0")]
    [InlineData("Envelopes:MaxWidgets", "20000000")]
    [InlineData("Envelopes:MaxEchoedChars", "1")]
    public void EnvelopeOptions_InvalidSetting_FailsNamingTheSetting(string setting, string value)
    {
        // Arrange
        using var provider = Build(new() { [setting] = value });

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<EnvelopeOptions>>().Value);

        // Assert
        Assert.Contains(setting, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Options_Defaults_AreValidAndDocumented()
    {
        // Arrange
        using var provider = Build([]);

        // Act
        var http = provider.GetRequiredService<IOptions<HttpOptions>>().Value;
        var envelopes = provider.GetRequiredService<IOptions<EnvelopeOptions>>().Value;

        // Assert
        Assert.Equal(16 * 1024 * 1024, http.MaxRequestBodyBytes);
        Assert.Equal(SignatureForms.Both, http.SignatureForms);
        Assert.Equal(50_000, envelopes.MaxWidgets);
        Assert.Equal(64, envelopes.MaxEchoedChars);
    }

    [Fact]
    public void WidgetEnvelopeReader_FromDi_UsesTheConfiguredWidgetLimit()
    {
        // Arrange
        using var provider = Build(new() { ["Envelopes:MaxWidgets"] = "1" });
        var reader = provider.GetRequiredService<WidgetEnvelopeReader>();
        var two = System.Text.Encoding.UTF8.GetString(Vector.Load("one-widget").Input);
        var widget = two[(two.IndexOf('[', StringComparison.Ordinal) + 1)..two.LastIndexOf(']')];
        var body = System.Text.Encoding.UTF8.GetBytes("{\"widgets\":[" + widget + "," + widget + "]}");

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => reader.Read(new MemoryStream(body)));

        // Assert
        Assert.Equal("$.widgets[1]", error.Problem.JsonPath);
    }

    private static ServiceProvider Build(Dictionary<string, string?> settings)
    {
        settings["Signing:LocalKey"] = Vector.KeyBase64;
        settings["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        settings["Auth:Disabled"] = "true";
        settings["Audit:Disabled"] = "true";
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        return new ServiceCollection().AddLogging().AddWidgetSigning(configuration).AddWidgetHttp(configuration).BuildServiceProvider();
    }
}
