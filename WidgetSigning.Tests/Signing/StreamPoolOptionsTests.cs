using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using WidgetSigning.Signing;

namespace WidgetSigning.Tests.Signing;

/// <summary>The <c>StreamPool</c> settings are validated as the app registers them, and each error names its setting.</summary>
public sealed class StreamPoolOptionsTests
{
    [Fact]
    public void Options_Defaults_Succeed()
    {
        // Act
        var options = Resolve([]);

        // Assert
        Assert.Equal(64 * 1024, options.BlockSize);
    }

    [Theory]
    [InlineData("StreamPool:BlockSize", "4096")]
    [InlineData("StreamPool:BlockSize", "84999")]
    [InlineData("StreamPool:LargeBufferMultiple", "16777216")]
    [InlineData("StreamPool:MaximumSmallPoolFreeBytes", "1")]
    [InlineData("StreamPool:MaximumLargePoolFreeBytes", "1")]
    [InlineData("StreamPool:MaximumStreamCapacity", "65536")]
    public void Options_SettingAtItsBound_Succeeds(string setting, string value)
    {
        // Act
        var options = Resolve(new() { [setting] = value });

        // Assert
        Assert.NotNull(options);
    }

    [Theory]
    [InlineData("StreamPool:BlockSize", "4095", "StreamPool:BlockSize")]
    [InlineData("StreamPool:BlockSize", "85000", "StreamPool:BlockSize")]
    [InlineData("StreamPool:LargeBufferMultiple", "0", "StreamPool:LargeBufferMultiple")]
    [InlineData("StreamPool:LargeBufferMultiple", "3000000", "StreamPool:MaximumBufferSize")]
    [InlineData("StreamPool:MaximumBufferSize", "1000", "StreamPool:MaximumBufferSize")]
    [InlineData("StreamPool:MaximumSmallPoolFreeBytes", "0", "StreamPool:MaximumSmallPoolFreeBytes")]
    [InlineData("StreamPool:MaximumLargePoolFreeBytes", "-1", "StreamPool:MaximumLargePoolFreeBytes")]
    [InlineData("StreamPool:MaximumStreamCapacity", "65535", "StreamPool:MaximumStreamCapacity")]
    public void Options_BadSetting_FailNamingIt(string setting, string value, string named)
    {
        // Act
        var error = Assert.Throws<OptionsValidationException>(() => Resolve(new() { [setting] = value }));

        // Assert
        Assert.Contains(named + " must", error.Message, StringComparison.Ordinal);
    }

    private static StreamPoolOptions Resolve(Dictionary<string, string?> settings)
    {
        // Arrange
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).BuildServiceProvider();
        return provider.GetRequiredService<IOptions<StreamPoolOptions>>().Value;
    }
}
