using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using WidgetSigning.Queues;
using WidgetSigning.Signing;

namespace WidgetSigning.Tests.Queues;

/// <summary>
/// The <c>Queues</c> limits and the flat queue/container names are validated as the app registers them, and each
/// error names its setting; the old nested names fail naming the new ones.
/// </summary>
public sealed class QueueOptionsTests
{
    [Fact]
    public void Options_Defaults_Succeed()
    {
        var (options, names) = Resolve([]);

        Assert.Equal(16 * 1024, options.InlineCanonicalMaxBytes);
        Assert.Equal(SignatureForms.Both, options.SignatureForms);
        Assert.Equal("widget-envelopes", names.WidgetInputQueue);
        Assert.Equal("widget-signatures", names.WidgetOutputQueue);
        Assert.Equal("widget-envelopes-rejected", names.WidgetRejectedQueue);
        Assert.Equal("widget-claims", names.WidgetClaimsContainer);
        Assert.Equal("widget-canonical", names.WidgetCanonicalContainer);
        Assert.Equal("widget-rejected", names.WidgetRejectedContainer);
        Assert.Equal("widget-envelopes-poison", names.PoisonQueue);
    }

    [Fact]
    public void Names_FlatSettings_AreRead()
    {
        var (_, names) = Resolve(new() { ["WidgetInputQueue"] = "in-q", ["WidgetCanonicalContainer"] = "canon" });

        Assert.Equal("in-q", names.WidgetInputQueue);
        Assert.Equal("canon", names.WidgetCanonicalContainer);
    }

    [Theory]
    [InlineData("Queues:InlineCanonicalMaxBytes", "0")]
    [InlineData("Queues:InlineCanonicalMaxBytes", "30720")]
    [InlineData("WidgetInputQueue", "abc")]
    [InlineData("WidgetInputQueue", "a2345678901234567890123456789012345678901234567890123456")]
    [InlineData("WidgetClaimsContainer", "a23456789012345678901234567890123456789012345678901234567890123")]
    [InlineData("Queues:MaxClaimCheckBytes", "1")]
    public void Options_SettingAtItsBound_Succeeds(string setting, string value)
    {
        var resolved = Resolve(new() { [setting] = value });

        Assert.NotNull(resolved.Options);
    }

    [Theory]
    [InlineData("Queues:InlineCanonicalMaxBytes", "40960", "Queues:InlineCanonicalMaxBytes")]
    [InlineData("Queues:InlineCanonicalMaxBytes", "30721", "Queues:InlineCanonicalMaxBytes")]
    [InlineData("Queues:InlineCanonicalMaxBytes", "-1", "Queues:InlineCanonicalMaxBytes")]
    [InlineData("WidgetInputQueue", "Widget_Envelopes", "WidgetInputQueue")]
    [InlineData("WidgetInputQueue", "widget--envelopes", "WidgetInputQueue")]
    [InlineData("WidgetInputQueue", "-widgets", "WidgetInputQueue")]
    [InlineData("WidgetInputQueue", "a23456789012345678901234567890123456789012345678901234567", "WidgetInputQueue")]
    [InlineData("WidgetRejectedQueue", "ab", "WidgetRejectedQueue")]
    [InlineData("WidgetClaimsContainer", "x", "WidgetClaimsContainer")]
    [InlineData("WidgetCanonicalContainer", "a234567890123456789012345678901234567890123456789012345678901234", "WidgetCanonicalContainer")]
    [InlineData("WidgetRejectedContainer", "widget-", "WidgetRejectedContainer")]
    [InlineData("Queues:MaxClaimCheckBytes", "0", "Queues:MaxClaimCheckBytes")]
    [InlineData("Queues:SignatureForms", "3", "Queues:SignatureForms")]
    [InlineData("Queues:SignatureForms", "Plain,Webhook", "Queues:SignatureForms")]
    [InlineData("WidgetOutputQueue", "widget-envelopes", "WidgetInputQueue, WidgetOutputQueue and WidgetRejectedQueue (and the input's -poison queue)")]
    [InlineData("WidgetRejectedQueue", "widget-envelopes-poison", "WidgetInputQueue, WidgetOutputQueue and WidgetRejectedQueue (and the input's -poison queue)")]
    public void Options_BadSetting_FailNamingIt(string setting, string value, string named)
    {
        // Act
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new() { [setting] = value }));

        // Assert
        Assert.Contains(named + " must", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("webhook", SignatureForms.Webhook)]
    [InlineData("Plain", SignatureForms.Plain)]
    public void Options_SignatureForms_AreRead(string value, SignatureForms expected)
    {
        var (options, _) = Resolve(new() { ["Queues:SignatureForms"] = value });

        Assert.Equal(expected, options.SignatureForms);
    }

    [Fact]
    public void Options_SignatureFormsUnknownName_FailsNamingTheSetting()
    {
        // Act: a value the configuration binder cannot convert fails there, naming the setting's path.
        var error = Assert.Throws<InvalidOperationException>(() => Resolve(new() { ["Queues:SignatureForms"] = "hmac" }));

        // Assert
        Assert.Contains("'Queues:SignatureForms'", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Queues:Input", "WidgetInputQueue")]
    [InlineData("Queues:Output", "WidgetOutputQueue")]
    [InlineData("Queues:Rejected", "WidgetRejectedQueue")]
    [InlineData("Queues:ClaimCheckContainer", "WidgetClaimsContainer")]
    [InlineData("Queues:CanonicalContainer", "WidgetCanonicalContainer")]
    [InlineData("Queues:RejectedContainer", "WidgetRejectedContainer")]
    [InlineData("Queues__Input", "WidgetInputQueue")]
    public void Names_ObsoleteNestedSetting_FailsStartNamingTheNewSetting(string obsolete, string replacement)
    {
        // Arrange: App Service's __ form reaches configuration as ':' (environment variables provider).
        var key = obsolete.Replace("__", ":", StringComparison.Ordinal);

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new() { [key] = "widget-envelopes" }));

        // Assert
        Assert.Contains($"{key} is no longer read: set {replacement} instead", error.Message, StringComparison.Ordinal);
    }

    private static (QueueOptions Options, QueueNames Names) Resolve(Dictionary<string, string?> settings)
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        using var provider = new ServiceCollection().AddWidgetQueueSigning(configuration).BuildServiceProvider();
        return (provider.GetRequiredService<IOptions<QueueOptions>>().Value, provider.GetRequiredService<IOptions<QueueNames>>().Value);
    }
}
