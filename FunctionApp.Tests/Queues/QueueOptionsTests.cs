using FunctionApp.Queues;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Queues;

/// <summary>The <c>Queues</c> settings are validated as the app registers them, and each error names its setting.</summary>
public sealed class QueueOptionsTests
{
    [Fact]
    public void Options_Defaults_Succeed()
    {
        var options = Resolve([]);

        Assert.Equal(16 * 1024, options.InlineCanonicalMaxBytes);
        Assert.Equal("widget-envelopes", options.Input);
    }

    [Theory]
    [InlineData("Queues:InlineCanonicalMaxBytes", "0")]
    [InlineData("Queues:InlineCanonicalMaxBytes", "32768")]
    [InlineData("Queues:Input", "abc")]
    [InlineData("Queues:Input", "a2345678901234567890123456789012345678901234567890123456")]
    [InlineData("Queues:ClaimCheckContainer", "a23456789012345678901234567890123456789012345678901234567890123")]
    [InlineData("Queues:MaxClaimCheckBytes", "1")]
    public void Options_SettingAtItsBound_Succeeds(string setting, string value)
    {
        var options = Resolve(new() { [setting] = value });

        Assert.NotNull(options);
    }

    [Theory]
    [InlineData("Queues:InlineCanonicalMaxBytes", "40960", "Queues:InlineCanonicalMaxBytes")]
    [InlineData("Queues:InlineCanonicalMaxBytes", "32769", "Queues:InlineCanonicalMaxBytes")]
    [InlineData("Queues:InlineCanonicalMaxBytes", "-1", "Queues:InlineCanonicalMaxBytes")]
    [InlineData("Queues:Input", "Widget_Envelopes", "Queues:Input")]
    [InlineData("Queues:Input", "widget--envelopes", "Queues:Input")]
    [InlineData("Queues:Input", "-widgets", "Queues:Input")]
    [InlineData("Queues:Input", "a23456789012345678901234567890123456789012345678901234567", "Queues:Input")]
    [InlineData("Queues:Rejected", "ab", "Queues:Rejected")]
    [InlineData("Queues:ClaimCheckContainer", "x", "Queues:ClaimCheckContainer")]
    [InlineData("Queues:CanonicalContainer", "a234567890123456789012345678901234567890123456789012345678901234", "Queues:CanonicalContainer")]
    [InlineData("Queues:RejectedContainer", "widget-", "Queues:RejectedContainer")]
    [InlineData("Queues:MaxClaimCheckBytes", "0", "Queues:MaxClaimCheckBytes")]
    [InlineData("Queues:Output", "widget-envelopes", "Queues:Input, Output and Rejected (and the input's -poison queue)")]
    [InlineData("Queues:Rejected", "widget-envelopes-poison", "Queues:Input, Output and Rejected (and the input's -poison queue)")]
    public void Options_BadSetting_FailNamingIt(string setting, string value, string named)
    {
        // Act
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new() { [setting] = value }));

        // Assert
        Assert.Contains(named + " must", error.Message, StringComparison.Ordinal);
    }

    private static QueueOptions Resolve(Dictionary<string, string?> settings)
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        using var provider = new ServiceCollection().AddWidgetQueueSigning(configuration).BuildServiceProvider();
        return provider.GetRequiredService<IOptions<QueueOptions>>().Value;
    }
}
