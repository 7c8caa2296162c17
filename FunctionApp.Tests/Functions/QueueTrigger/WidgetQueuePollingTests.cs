using FunctionApp.Functions.QueueTrigger;
using Microsoft.Azure.WebJobs.Host.Scale;

namespace FunctionApp.Tests.Functions.QueueTrigger;

/// <summary>The trigger's pure rules: the polling backoff and the scale vote.</summary>
public sealed class WidgetQueuePollingTests
{
    [Fact]
    public void NextDelay_EmptyPolls_DoubleFrom100MsUpToTheMaximum()
    {
        // Arrange
        var maximum = TimeSpan.FromSeconds(1);
        var delays = new List<TimeSpan>();
        var delay = TimeSpan.Zero;

        // Act
        for (var i = 0; i < 7; i++)
        {
            delay = WidgetQueueListener.NextDelay(delay, maximum);
            delays.Add(delay);
        }

        // Assert
        Assert.Equal([100, 200, 400, 800, 1000, 1000, 1000], delays.Select(d => (int)d.TotalMilliseconds));
    }

    public static TheoryData<int, long[], long[], ScaleVote> Votes => new()
    {
        { 1, [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], ScaleVote.ScaleIn },
        { 1, [5, 5], [0, 0], ScaleVote.None },
        { 2, [2001], [0], ScaleVote.ScaleOut },
        { 2, [1, 2, 3, 4, 5], [9, 9, 9, 9, 9], ScaleVote.ScaleOut },
        { 2, [5, 5, 5, 5, 5], [1, 2, 3, 4, 5], ScaleVote.ScaleOut },
        { 2, [5, 4, 3, 2, 1], [9, 9, 9, 9, 9], ScaleVote.ScaleIn },
        { 2, [5, 5, 5, 5, 5], [9, 9, 9, 9, 9], ScaleVote.None },
    };

    [Theory]
    [MemberData(nameof(Votes))]
    public void Vote_Samples_FollowTheDocumentedRule(int workers, long[] lengths, long[] ageSeconds, ScaleVote expected)
    {
        // Arrange
        var metrics = lengths.Select((length, i) => new WidgetQueueMetrics { QueueLength = length, QueueTime = TimeSpan.FromSeconds(ageSeconds[i]) }).ToList();

        // Act
        var vote = WidgetQueueScaleMonitor.Vote(workers, metrics);

        // Assert
        Assert.Equal(expected, vote);
    }
}
