using System.Diagnostics;
using WidgetSigning.Audit;

namespace WidgetSigning.Tests.Audit;

/// <summary>
/// <see cref="AuditQueue"/>: group commit that follows the load. A record that finds a writer idle wakes exactly that
/// writer; records that arrive while every writer is busy wake nobody and are the next group, in order.
/// </summary>
public sealed class AuditQueueTests
{
    [Fact]
    public async Task TryAdd_AWriterIsIdle_WakesItAndItTakesTheRecord()
    {
        // Arrange
        var queue = new AuditQueue();
        var slot = new AuditQueue.Slot();
        var batch = new List<AuditPending>();
        var idle = queue.TakeOrWait(slot, batch, 10);

        // Act
        var added = queue.TryAdd(Record("a"));

        // Assert
        Assert.True(added);
        Assert.NotNull(idle);
        Assert.True(idle.IsCompletedSuccessfully);
        Assert.True(await idle);
        Assert.Null(queue.TakeOrWait(slot, batch, 10));
        Assert.Equal(new[] { "a" }, Names(batch));
    }

    [Fact]
    public void TryAdd_TwoWritersIdle_WakesOnlyOne()
    {
        // Arrange
        var queue = new AuditQueue();
        var first = queue.TakeOrWait(new AuditQueue.Slot(), [], 10);
        var second = queue.TakeOrWait(new AuditQueue.Slot(), [], 10);

        // Act
        queue.TryAdd(Record("a"));

        // Assert
        Assert.NotNull(first);
        Assert.NotNull(second);
        Assert.Equal(1, new[] { first, second }.Count(t => t.IsCompleted));
    }

    [Fact]
    public void TryAdd_EveryWriterBusy_WakesNobodyAndTheRecordsAreTheNextGroupInOrder()
    {
        // Arrange: the one writer took "a" and is writing it.
        var queue = new AuditQueue();
        var slot = new AuditQueue.Slot();
        queue.TryAdd(Record("a"));
        var writing = new List<AuditPending>();
        Assert.Null(queue.TakeOrWait(slot, writing, 10));

        // Act
        foreach (var name in new[] { "b", "c", "d" })
        {
            queue.TryAdd(Record(name));
        }

        var next = new List<AuditPending>();
        var idle = queue.TakeOrWait(slot, next, 10);

        // Assert
        Assert.Equal(new[] { "a" }, Names(writing));
        Assert.Null(idle);
        Assert.Equal(new[] { "b", "c", "d" }, Names(next));
    }

    [Fact]
    public void TakeOrWait_MoreWaitingThanMax_TakesMaxAndLeavesTheRestForTheNextWrite()
    {
        // Arrange
        var queue = new AuditQueue();
        var slot = new AuditQueue.Slot();
        for (var i = 0; i < 5; i++)
        {
            queue.TryAdd(Record($"r{i}"));
        }

        // Act
        var first = new List<AuditPending>();
        queue.TakeOrWait(slot, first, 3);
        var second = new List<AuditPending>();
        queue.TakeOrWait(slot, second, 3);

        // Assert
        Assert.Equal(new[] { "r0", "r1", "r2" }, Names(first));
        Assert.Equal(new[] { "r3", "r4" }, Names(second));
    }

    [Fact]
    public void TakeOrWait_ARecordItsCallerGaveUp_IsNeverTaken()
    {
        // Arrange
        var queue = new AuditQueue();
        var abandoned = Record("abandoned");
        queue.TryAdd(abandoned);
        queue.TryAdd(Record("kept"));
        Assert.True(abandoned.GiveUp());

        // Act
        var batch = new List<AuditPending>();
        queue.TakeOrWait(new AuditQueue.Slot(), batch, 10);

        // Assert
        Assert.Equal(new[] { "kept" }, Names(batch));
    }

    [Fact]
    public void TakeOrWait_IdleWriterAsksAgain_KeepsOneWakeSoTheNextRecordStillWakesIt()
    {
        // Arrange: an idle writer that woke for an anchor and asks again without having been woken.
        var queue = new AuditQueue();
        var slot = new AuditQueue.Slot();
        var before = queue.TakeOrWait(slot, [], 10);

        // Act
        var again = queue.TakeOrWait(slot, [], 10);
        queue.TryAdd(Record("a"));

        // Assert
        Assert.Same(before, again);
        Assert.NotNull(again);
        Assert.True(again.IsCompleted);
    }

    [Fact]
    public async Task Complete_AWriterIsIdle_WakesItToStopAndRefusesNewRecords()
    {
        // Arrange
        var queue = new AuditQueue();
        var slot = new AuditQueue.Slot();
        var idle = queue.TakeOrWait(slot, [], 10);

        // Act
        var completed = queue.Complete();
        var again = queue.Complete();
        var refused = !queue.TryAdd(Record("late"));
        var after = queue.TakeOrWait(slot, [], 10);

        // Assert
        Assert.True(completed);
        Assert.False(again);
        Assert.True(refused);
        Assert.NotNull(idle);
        Assert.True(idle.IsCompletedSuccessfully);
        Assert.False(await idle);
        Assert.NotNull(after);
        Assert.True(after.IsCompletedSuccessfully);
        Assert.False(await after);
    }

    [Fact]
    public async Task Complete_RecordsStillWaiting_TheyAreTakenBeforeTheWriterIsToldToStop()
    {
        // Arrange
        var queue = new AuditQueue();
        var slot = new AuditQueue.Slot();
        queue.TryAdd(Record("a"));

        // Act
        queue.Complete();
        var last = new List<AuditPending>();
        var taken = queue.TakeOrWait(slot, last, 10);
        var stop = queue.TakeOrWait(slot, [], 10);

        // Assert
        Assert.Null(taken);
        Assert.Equal(new[] { "a" }, Names(last));
        Assert.NotNull(stop);
        Assert.True(stop.IsCompletedSuccessfully);
        Assert.False(await stop);
    }

    [Fact]
    public async Task AcknowledgeAll_ABlockOfThree_CompletesEachWithItsStreamAndTheBlocksSize()
    {
        // Arrange
        var block = new List<AuditPending> { Record("a"), Record("b"), Record("c") };

        // Act
        AuditPending.AcknowledgeAll(block, "streams/p-0/x.jsonl");
        await Task.WhenAll(block.Select(r => r.Durable.Task)).WaitAsync(TimeSpan.FromSeconds(10));

        // Assert
        Assert.All(block, r => Assert.Equal(("streams/p-0/x.jsonl", 3), (r.Stream, r.GroupSize)));
    }

    [Fact]
    public async Task FailAll_ABlockOfTwo_FaultsEachWithTheWritesError()
    {
        // Arrange
        var block = new List<AuditPending> { Record("a"), Record("b") };
        var error = new TimeoutException("store");

        // Act
        AuditPending.FailAll(block, error);

        // Assert
        foreach (var record in block)
        {
            Assert.Same(error, await Assert.ThrowsAsync<TimeoutException>(() => record.Durable.Task.WaitAsync(TimeSpan.FromSeconds(10))));
        }
    }

    private static AuditPending Record(string name) => new(System.Text.Encoding.UTF8.GetBytes(name), default(ActivityContext));

    private static string[] Names(List<AuditPending> batch) => batch.Select(r => System.Text.Encoding.UTF8.GetString(r.Body)).ToArray();
}
