using WidgetSigning.SpareCores;

namespace WidgetSigning.Tests.SpareCores;

/// <summary>The two-core scaling probe: the real measurement ends with a plausible value; its timing is not asserted.</summary>
public sealed class CoreScalingProbeTests
{
    [Fact]
    public async Task Real_OnThisMachine_AnswersAPlausibleScaling()
    {
        // Arrange
        var probe = CoreScalingProbe.Real();

        // Act
        var scaling = await probe.MeasureAsync().WaitAsync(TimeSpan.FromSeconds(30));

        // Assert: 1.0 on one core's worth of CPU, 2.0 on two real cores. Tests running beside it can starve either window
        // (the pair's second thread, or the lone thread, which inflates the ratio), so this rules out only what broken
        // arithmetic gives: 0, NaN, infinity, or orders of magnitude off (an inverted ratio is
        // Measure_WorkThatNeedsNoCore_AnswersAboutTwoNeverItsInverse's to catch).
        Assert.InRange(scaling, 0.05, 20);
    }

    [Fact]
    public void Measure_WorkThatNeedsNoCore_AnswersAboutTwoNeverItsInverse()
    {
        // Arrange: a step that sleeps (no CPU), so two threads do twice one thread's steps on any machine, however
        // loaded: the scaling is two threads' rate over one's, 2, where the inverted ratio would be 0.5.
        CoreScalingProbe.HashStep sleep = static (_, _, _) => Thread.Sleep(1);

        // Act
        var scaling = CoreScalingProbe.Measure(bufferBytes: 16, repeats: 3, TimeSpan.FromMilliseconds(100), sleep);

        // Assert
        Assert.InRange(scaling, 1.5, 2.5);
    }

    [Fact]
    public async Task Fixed_Value_AnswersItAtOnce()
    {
        // Arrange
        var probe = CoreScalingProbe.Fixed(1.3);

        // Act
        var reading = probe.MeasureAsync();
        var completed = reading.IsCompleted;
        var scaling = await reading;

        // Assert
        Assert.True(completed);
        Assert.Equal(1.3, scaling);
    }

    [Fact]
    public void Of_NotAsked_DoesNotMeasure()
    {
        // Arrange
        var measured = false;

        // Act
        _ = CoreScalingProbe.Of(() => { measured = true; return 2.0; });

        // Assert
        Assert.False(measured);
    }
}
