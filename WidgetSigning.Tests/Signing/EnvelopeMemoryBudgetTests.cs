using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using WidgetSigning.Envelopes;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Signing;

/// <summary>The process-wide budget, its leases and its settings, and the canonical size bound in the signer.</summary>
public sealed class EnvelopeMemoryBudgetTests
{
    [Fact]
    public void Cover_WithinTheBudget_ChargesOnlyGrowthAndDisposeReleasesAll()
    {
        // Arrange
        var budget = new EnvelopeMemoryBudget(1000, TimeSpan.Zero);
        var lease = budget.Lease();

        // Act
        lease.Cover(300);
        lease.Cover(200);
        lease.Cover(700);
        var held = budget.InUse;
        lease.Dispose();
        lease.Dispose();

        // Assert
        Assert.Equal(700, held);
        Assert.Equal(0, budget.InUse);
    }

    [Fact]
    public void Cover_OverTheBudget_ThrowsNamingTheSettingAndChargesNothing()
    {
        // Arrange
        var budget = new EnvelopeMemoryBudget(1000, TimeSpan.Zero);
        using var first = budget.Lease();
        first.Cover(800);
        using var second = budget.Lease();

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MemoryBudget, () => second.Cover(201));

        // Assert
        Assert.Contains(MemoryBudgetOptions.MaxBytesInFlightSetting, error.Message, StringComparison.Ordinal);
        Assert.Equal(800, budget.InUse);
        Assert.Equal(0, second.Charged);
    }

    [Fact]
    public async Task CoverAsync_RoomFreedWithinTheWait_Succeeds()
    {
        // Arrange
        var budget = new EnvelopeMemoryBudget(1000, TimeSpan.FromSeconds(5));
        var holder = budget.Lease();
        holder.Cover(1000);
        using var waiting = budget.Lease();

        // Act
        var cover = waiting.CoverAsync(500, CancellationToken.None).AsTask();
        await Task.Delay(100);
        var waited = !cover.IsCompleted;
        holder.Dispose();
        await cover;

        // Assert
        Assert.True(waited);
        Assert.Equal(500, budget.InUse);
    }

    [Fact]
    public async Task CoverAsync_NoRoomWithinTheWait_Throws()
    {
        // Arrange
        var budget = new EnvelopeMemoryBudget(1000, TimeSpan.FromMilliseconds(100));
        using var holder = budget.Lease();
        holder.Cover(1000);
        using var waiting = budget.Lease();

        // Act + Assert
        await ProblemAssert.ThrowsAsync(Problems.Types.MemoryBudget, () => waiting.CoverAsync(1, CancellationToken.None).AsTask());
        Assert.Equal(1000, budget.InUse);
    }

    [Theory]
    [InlineData(1L * 1024 * 1024 * 1024, 128L * 1024 * 1024)]
    [InlineData(1536L * 1024 * 1024, 192L * 1024 * 1024)]
    [InlineData(3584L * 1024 * 1024, 448L * 1024 * 1024)]
    [InlineData(128L * 1024 * 1024, MemoryBudgetOptions.MinBytesInFlight)]
    public void DefaultFor_PlanMemory_IsAnEighthAndAtLeastTheMinimum(long available, long expected)
    {
        Assert.Equal(expected, EnvelopeMemoryBudget.DefaultFor(available));
    }

    [Fact]
    public void Registration_Default_DerivesFromTheAvailableMemory()
    {
        // Act
        using var provider = Provider([]);
        var budget = provider.GetRequiredService<EnvelopeMemoryBudget>();

        // Assert
        Assert.Equal(EnvelopeMemoryBudget.DefaultFor(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes), budget.Capacity);
        Assert.Equal(TimeSpan.FromSeconds(2), budget.MaxWait);
    }

    [Theory]
    [InlineData("MemoryBudget:MaxBytesInFlight", "33554432")]
    [InlineData("MemoryBudget:MaxBytesInFlight", "68719476736")]
    [InlineData("MemoryBudget:MaxWait", "00:00:30")]
    [InlineData("Envelopes:MaxCanonicalBytes", "1024")]
    [InlineData("Envelopes:MaxCanonicalBytes", "268435456")]
    [InlineData("Http:MinDataRateBytesPerSecond", "1024")]
    [InlineData("Http:DataRateGracePeriod", "00:05:00")]
    public void Options_SettingAtItsBound_Succeeds(string setting, string value)
    {
        // Act
        using var provider = Provider(new() { [setting] = value });

        // Assert
        Assert.NotNull(provider.GetRequiredService<IOptions<MemoryBudgetOptions>>().Value);
        Assert.NotNull(provider.GetRequiredService<IOptions<EnvelopeOptions>>().Value);
        Assert.NotNull(provider.GetRequiredService<IOptions<HttpOptions>>().Value);
    }

    [Theory]
    [InlineData("MemoryBudget:MaxBytesInFlight", "33554431")]
    [InlineData("MemoryBudget:MaxBytesInFlight", "-1")]
    [InlineData("MemoryBudget:MaxBytesInFlight", "68719476737")]
    [InlineData("MemoryBudget:MaxWait", "00:00:31")]
    [InlineData("Envelopes:MaxCanonicalBytes", "1023")]
    [InlineData("Envelopes:MaxCanonicalBytes", "268435457")]
    [InlineData("Http:MinDataRateBytesPerSecond", "1023")]
    [InlineData("Http:DataRateGracePeriod", "00:05:01")]
    public void Options_BadSetting_FailNamingIt(string setting, string value)
    {
        // Arrange
        using var provider = Provider(new() { [setting] = value });

        // Act
        var error = Assert.Throws<OptionsValidationException>(() =>
        {
            _ = provider.GetRequiredService<IOptions<MemoryBudgetOptions>>().Value;
            _ = provider.GetRequiredService<IOptions<EnvelopeOptions>>().Value;
            _ = provider.GetRequiredService<IOptions<HttpOptions>>().Value;
        });

        // Assert
        Assert.Contains(setting + " must", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Sign_CanonicalOverTheBoundAttack_StopsWhileWritingAndHoldsNothing()
    {
        // Arrange: 1 MiB of raw U+0085 (2 bytes in, 6 out): 3 MiB canonical against a 1 MiB bound.
        var services = new TestServices();
        var envelope = services.Reader.Read(new MemoryStream(AttackBodies.ControlCharacterEnvelope(1024 * 1024, "nel")));
        var signer = services.CreateSigner(envelopes: new EnvelopeOptions { MaxCanonicalBytes = 1024 * 1024 });
        var budget = new EnvelopeMemoryBudget(64L * 1024 * 1024, TimeSpan.Zero);
        var lease = budget.Lease();

        // Act
        var error = ProblemAssert.Throws(Problems.Types.CanonicalTooLarge, () => signer.SignWith(envelope, lease: lease));
        var charged = lease.Charged;
        lease.Dispose();

        // Assert: stopped within a block of the bound, not after writing 3 MiB; nothing left pooled.
        Assert.Contains(EnvelopeOptions.MaxCanonicalBytesSetting, error.Message, StringComparison.Ordinal);
        Assert.InRange(charged, 1024 * 1024, (1024 * 1024) + (2 * 64 * 1024));
        Assert.Equal(0, services.Streams.SmallPoolInUseSize + services.Streams.LargePoolInUseSize);
        Assert.Equal(0, budget.InUse);
    }

    private static ServiceProvider Provider(Dictionary<string, string?> settings)
    {
        settings["Signing:LocalKey"] = Vector.KeyBase64;
        settings["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        settings["Auth:Disabled"] = "true";
        settings["Audit:Disabled"] = "true";
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        return new ServiceCollection().AddLogging().AddSingleton<IConfiguration>(configuration).AddWidgetSigning(configuration).AddWidgetHttp(configuration).BuildServiceProvider();
    }
}
