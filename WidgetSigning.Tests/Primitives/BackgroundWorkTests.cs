using System.Diagnostics;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Primitives;

/// <summary>
/// <see cref="BackgroundWork"/>: work a request starts that is not the request's sees neither its span nor anything
/// else that flows with it, and the request keeps its own span.
/// </summary>
public sealed class BackgroundWorkTests
{
    private static readonly AsyncLocal<string?> Flowed = new();

    [Fact]
    public async Task Run_UnderARequestsSpan_TheWorkSeesNoSpanAndNothingFlowed()
    {
        // Arrange
        using var request = new Activity("request").Start();
        Flowed.Value = "request";

        // Act
        var (span, flowed) = await BackgroundWork.Run(() => Task.FromResult((Activity.Current, Flowed.Value)));

        // Assert
        Assert.Null(span);
        Assert.Null(flowed);
        Assert.Same(request, Activity.Current);
        Assert.Equal("request", Flowed.Value);
    }

    [Fact]
    public async Task CreateTimer_UnderARequestsSpan_TheCallbackSeesNoSpan()
    {
        // Arrange
        using var request = new Activity("request").Start();
        var seen = new TaskCompletionSource<Activity?>(TaskCreationOptions.RunContinuationsAsynchronously);

        // Act
        using var timer = BackgroundWork.CreateTimer(TimeProvider.System, _ => seen.TrySetResult(Activity.Current), null, TimeSpan.FromMilliseconds(1), Timeout.InfiniteTimeSpan);

        // Assert
        Assert.Null(await seen.Task.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Same(request, Activity.Current);
    }

    [Fact]
    public async Task Start_AnAsyncMethodUnderARequestsSpan_ItsContinuationsSeeNoSpan()
    {
        // Arrange
        using var request = new Activity("request").Start();

        // Act: the method's first part runs here, the rest after a real wait.
        var seen = await BackgroundWork.Start(async () =>
        {
            var before = Activity.Current;
            await Task.Delay(10);
            return (before, Activity.Current);
        });

        // Assert
        Assert.Equal((null, null), seen);
        Assert.Same(request, Activity.Current);
    }
}
