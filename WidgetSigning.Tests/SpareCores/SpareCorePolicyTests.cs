using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using WidgetSigning.SpareCores;
using WidgetSigning.Signing;

namespace WidgetSigning.Tests.SpareCores;

/// <summary>
/// When a signature may hand work to a second core: the mode, the size floor and the count of signatures in flight, one
/// count per policy (the process's singleton), and the <c>SpareCores</c> settings validated as the app registers them.
/// </summary>
public sealed class SpareCorePolicyTests
{
    [Theory]
    [InlineData(nameof(SpareCoreMode.Never), 0, false)]
    [InlineData(nameof(SpareCoreMode.Never), 16 * 1024 * 1024, false)]
    [InlineData(nameof(SpareCoreMode.Adaptive), SpareCoreOptions.DefaultMinimumBytes - 1, false)]
    public void SpareCoreFor_ModeAndSize_Decides(string mode, long bytes, bool expected)
    {
        // Arrange (the mode by name: the enum is internal to the core, a public test method cannot take it)
        var policy = TestServices.SpareCores(new SpareCoreOptions { Mode = Enum.Parse<SpareCoreMode>(mode) });

        // Act
        using var inFlight = policy.Enter();
        var spare = inFlight.SpareCoreFor(bytes);

        // Assert
        Assert.Equal(expected, spare);
    }

    [Fact]
    public void CoreStillSpare_MoreSignaturesThanCoresAttack_FalseUntilTheyEnd()
    {
        // Arrange: one signature per core may share the process's cores; one more takes the spare core away.
        var policy = TestServices.SpareCores(new SpareCoreOptions { CoresPerSignature = 1 });
        var signatures = Enumerable.Range(0, Environment.ProcessorCount).Select(_ => policy.Enter()).ToList();
        var spareAtTheLimit = policy.CoreStillSpare();

        // Act
        var oneMore = policy.Enter();
        var spareBeyond = policy.CoreStillSpare();
        var spareForNewWork = oneMore.SpareCoreFor(long.MaxValue);
        oneMore.Dispose();
        signatures.ForEach(s => s.Dispose());

        // Assert
        Assert.True(spareAtTheLimit);
        Assert.False(spareBeyond);
        Assert.False(spareForNewWork);
        Assert.True(policy.CoreStillSpare());
    }

    [Fact]
    public void CoreStillSpare_AnotherPolicysSignatures_NotCounted()
    {
        // Arrange: each policy counts its own signatures (no process-wide static).
        var busy = TestServices.SpareCores(new SpareCoreOptions { CoresPerSignature = 1 });
        var other = TestServices.SpareCores(new SpareCoreOptions { CoresPerSignature = 1 });

        // Act
        var signatures = Enumerable.Range(0, Environment.ProcessorCount + 1).Select(_ => busy.Enter()).ToList();
        var otherSpare = other.CoreStillSpare();
        signatures.ForEach(s => s.Dispose());

        // Assert
        Assert.True(otherSpare);
    }

    [Fact]
    public void AddWidgetSigning_Registered_OnePolicyForTheProcess()
    {
        // Arrange
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?> { ["SpareCores:Mode"] = "Never" }).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).BuildServiceProvider();

        // Act
        var one = provider.GetRequiredService<SpareCorePolicy>();
        var other = provider.GetRequiredService<SpareCorePolicy>();

        // Assert
        Assert.Same(one, other);
        Assert.Equal(SpareCoreMode.Never, one.Mode);
    }

    [Theory]
    [InlineData("SpareCores:MinimumBytes", "-1", "SpareCores:MinimumBytes")]
    [InlineData("SpareCores:CoresPerSignature", "0", "SpareCores:CoresPerSignature")]
    [InlineData("SpareCores:CoresPerSignature", "65", "SpareCores:CoresPerSignature")]
    public void Options_BadSetting_FailNamingIt(string setting, string value, string named)
    {
        // Arrange
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?> { [setting] = value }).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).BuildServiceProvider();

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<SpareCoreOptions>>().Value);

        // Assert
        Assert.Contains(named + " must", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Always")]
    [InlineData("Sometimes")]
    public void Options_ModeNotAdaptiveOrNever_FailsNamingTheSetting(string mode)
    {
        // Arrange: Always was a mode for measurements; a deployment that still sets it must not start.
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?> { ["SpareCores:Mode"] = mode }).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).BuildServiceProvider();

        // Act
        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<IOptions<SpareCoreOptions>>().Value);

        // Assert
        Assert.Contains("SpareCores:Mode", error.Message, StringComparison.Ordinal);
    }
}
