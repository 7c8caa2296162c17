using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
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
    [InlineData(nameof(SpareCoreMode.Adaptive), SpareCoreOptions.DefaultMinimumBytes, true)]
    [InlineData(nameof(SpareCoreMode.Adaptive), 16 * 1024 * 1024, true)]
    public void SpareCoreFor_ModeAndSize_Decides(string mode, long bytes, bool expected)
    {
        // Arrange (the mode by name: the enum is internal to the core, a public test method cannot take it); one
        // signature per core, and no work waiting in the pool, whatever other tests queue.
        var policy = TestServices.SpareCores(new SpareCoreOptions { Mode = Enum.Parse<SpareCoreMode>(mode), CoresPerSignature = 1 });
        policy.PendingWork = static () => 0;

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
    [InlineData("SpareCores:MinimumScaling", "0.9", "SpareCores:MinimumScaling")]
    [InlineData("SpareCores:MinimumScaling", "2.1", "SpareCores:MinimumScaling")]
    [InlineData("SpareCores:RemeasureInterval", "00:00:29", "SpareCores:RemeasureInterval")]
    [InlineData("SpareCores:RemeasureInterval", "1.00:00:01", "SpareCores:RemeasureInterval")]
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

    [Theory]
    [InlineData(1.1, false)]
    [InlineData(1.39, false)]
    [InlineData(1.4, true)]
    [InlineData(1.9, true)]
    public void CoreStillSpare_MeasuredScaling_SecondCoreOnlyAtTheMinimum(double scaling, bool expected)
    {
        // Arrange: one signature per core, so only the machine's scaling decides (CoreStillSpare, unlike SpareCoreFor,
        // does not ask whether other tests left work waiting in the thread pool).
        var policy = TestServices.SpareCores(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 }, scaling);

        // Act
        using var inFlight = policy.Enter();
        var stillSpare = policy.CoreStillSpare();

        // Assert
        Assert.Equal(expected, stillSpare);
    }

    [Fact]
    public void SpareCoreFor_PoorScaling_FalseLikeModeNever()
    {
        // Arrange: SMT siblings or a CPU quota: two threads hash 1.1 times as fast as one.
        var policy = TestServices.SpareCores(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 }, scaling: 1.1);

        // Act
        using var inFlight = policy.Enter();
        var spare = inFlight.SpareCoreFor(long.MaxValue);

        // Assert
        Assert.False(spare);
    }

    [Fact]
    public void CoreStillSpare_MinimumScalingOne_TrustsTwoCoresHoweverPoor()
    {
        // Arrange: 1.0 means "always trust two cores", even where the probe measured less than 1.
        var policy = TestServices.SpareCores(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1, MinimumScaling = 1.0 }, scaling: 0.9);

        // Act
        using var inFlight = policy.Enter();
        var spare = policy.CoreStillSpare();

        // Assert
        Assert.True(spare);
    }

    [Fact]
    public async Task CoreStillSpare_BeforeTheProbeAnswers_TrustsTwoCoresThenFollowsIt()
    {
        // Arrange: a probe that answers only when told to.
        var answer = new TaskCompletionSource<double>(TaskCreationOptions.RunContinuationsAsynchronously);
        var policy = new SpareCorePolicy(
            Options.Create(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 }),
            TestServices.Metrics(),
            NullLogger.Instance,
            CoreScalingProbe.Of(() => answer.Task.GetAwaiter().GetResult()));
        bool before;
        using (policy.Enter())
        {
            before = policy.CoreStillSpare();
        }

        // Act
        answer.SetResult(1.1);
        var scaling = await policy.ScalingKnown;
        using var afterwards = policy.Enter();
        var after = policy.CoreStillSpare();

        // Assert
        Assert.True(before);
        Assert.Equal(1.1, scaling);
        Assert.False(after);
    }

    [Fact]
    public async Task ScalingKnown_LowReadingThenAHighOne_TrustsTwoCores()
    {
        // Arrange: the first reading taken while other work held a core (a busy start), the next on a quiet machine.
        var readings = new Queue<double>([1.0, 1.9]);
        var probe = CoreScalingProbe.Of(() => { lock (readings) { return readings.Dequeue(); } });

        // Act
        var policy = new SpareCorePolicy(Options.Create(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 }), TestServices.Metrics(), NullLogger.Instance, probe);
        var scaling = await policy.ScalingKnown.WaitAsync(TimeSpan.FromSeconds(10));
        using var inFlight = policy.Enter();

        // Assert
        Assert.Equal(1.9, scaling);
        Assert.Empty(readings);
        Assert.True(policy.CoreStillSpare());
    }

    [Fact]
    public async Task ScalingKnown_EveryReadingLow_OneCoreAfterTheConfirmingReadings()
    {
        // Arrange
        var measured = 0;
        var probe = CoreScalingProbe.Of(() =>
        {
            Interlocked.Increment(ref measured);
            return 1.2;
        });

        // Act
        var policy = new SpareCorePolicy(Options.Create(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 }), TestServices.Metrics(), NullLogger.Instance, probe);
        var scaling = await policy.ScalingKnown.WaitAsync(TimeSpan.FromSeconds(10));
        await Task.Delay(50);
        using var inFlight = policy.Enter();

        // Assert: measured LowReadingsToDecide times before deciding (the next reading is RemeasureInterval away), and one core.
        Assert.Equal(1.2, scaling);
        Assert.Equal(SpareCorePolicy.LowReadingsToDecide, Volatile.Read(ref measured));
        Assert.False(policy.CoreStillSpare());
    }

    [Fact]
    public void SpareCoreFor_WorkWaitingInThePool_False()
    {
        // Arrange: every other condition met.
        var policy = TestServices.SpareCores(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 });
        policy.PendingWork = static () => 1;

        // Act
        using var inFlight = policy.Enter();
        var spare = inFlight.SpareCoreFor(long.MaxValue);

        // Assert
        Assert.False(spare);
    }

    [Fact]
    public async Task TwoCoresPay_FloodAtStartThenAQuietReadingMinutesLater_SwitchesToTwoCoresAtTheNextRemeasure()
    {
        // Arrange: a flood of requests during start: three low readings 15 s apart; a quiet machine minutes later.
        var clock = new TimerCountingClock();
        var readings = new Queue<double>([0.91, 0.95, 0.9, 1.87]);
        var taken = 0;
        var probe = CoreScalingProbe.Of(() =>
        {
            lock (readings)
            {
                taken++;
                return readings.Dequeue();
            }
        });
        using var logs = new CapturedLogs();
        var policy = new SpareCorePolicy(
            Options.Create(new SpareCoreOptions { MinimumBytes = 0, CoresPerSignature = 1 }), TestServices.Metrics(), logs.CreateLogger("test"), probe, SpareCorePolicy.RemeasureAfter, clock);

        // Act: each wait on the clock moved past once the policy is waiting on it.
        for (var timers = 1; timers < SpareCorePolicy.LowReadingsToDecide; timers++)
        {
            await UntilAsync(() => clock.Timers == timers);
            clock.Advance(SpareCorePolicy.RemeasureAfter);
        }

        var decided = await policy.ScalingKnown.WaitAsync(TimeSpan.FromSeconds(30));
        await UntilAsync(() => clock.Timers == SpareCorePolicy.LowReadingsToDecide);
        var twoCoresAtStart = policy.TwoCoresPay;
        clock.Advance(SpareCoreOptions.DefaultRemeasureInterval - TimeSpan.FromTicks(1));
        await Task.Delay(50);
        var readingsJustBefore = Volatile.Read(ref taken);
        clock.Advance(TimeSpan.FromTicks(1));
        await UntilAsync(() => policy.TwoCoresPay);
        using var inFlight = policy.Enter();

        // Assert: one core after the start's readings; the quiet reading, RemeasureInterval later, gives two.
        Assert.Equal(0.95, decided);
        Assert.False(twoCoresAtStart);
        Assert.Equal(SpareCorePolicy.LowReadingsToDecide, readingsJustBefore);
        Assert.Equal(4, Volatile.Read(ref taken));
        Assert.True(policy.CoreStillSpare());
        Assert.Contains(logs.Entries, e => e.EventId.Id == 1004 && e.Message.Contains("may hand work to a second core", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Constructor_ProbeAnswers_LogsTheDecisionOnce()
    {
        // Arrange
        using var logs = new CapturedLogs();

        // Act
        var policy = new SpareCorePolicy(Options.Create(new SpareCoreOptions()), TestServices.Metrics(), logs.CreateLogger("test"), CoreScalingProbe.Fixed(1.2));
        await policy.ScalingKnown;

        // Assert
        var entry = Assert.Single(logs.Entries);
        Assert.Equal(1004, entry.EventId.Id);
        Assert.Contains("stay on one core", entry.Message, StringComparison.Ordinal);
        Assert.Contains("SpareCores:MinimumScaling", entry.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Constructor_ModeNever_DoesNotProbe()
    {
        // Arrange
        var probed = false;

        // Act
        var policy = new SpareCorePolicy(
            Options.Create(new SpareCoreOptions { Mode = SpareCoreMode.Never }),
            TestServices.Metrics(),
            NullLogger.Instance,
            CoreScalingProbe.Of(() => { probed = true; return 2.0; }));
        var scaling = await policy.ScalingKnown;

        // Assert
        Assert.True(double.IsNaN(scaling));
        Assert.False(probed);
    }

    // Real time only to let the probe's thread run; what is asserted is what happened, on the fake clock.
    private static async Task UntilAsync(Func<bool> condition)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (!condition() && waited.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(10);
        }
    }

    /// <summary>A fake clock that counts the timers made on it, so a test moves it only once a wait is registered.</summary>
    private sealed class TimerCountingClock : TimeProvider
    {
        private readonly FakeTimeProvider _fake = new();
        private int _timers;

        public int Timers => Volatile.Read(ref _timers);

        public override long TimestampFrequency => _fake.TimestampFrequency;

        public void Advance(TimeSpan by) => _fake.Advance(by);

        public override DateTimeOffset GetUtcNow() => _fake.GetUtcNow();

        public override long GetTimestamp() => _fake.GetTimestamp();

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            Interlocked.Increment(ref _timers);
            return _fake.CreateTimer(callback, state, dueTime, period);
        }
    }
}
