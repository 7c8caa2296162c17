using System.Diagnostics;

namespace WidgetSigning.Audit;

/// <summary>
/// A record waiting for its durable write: its line's body, the task its caller awaits, and who has it. A writer takes
/// it, or its caller, having waited long enough, gives it up; whichever comes first decides, so a record whose caller
/// was already answered 503 is never written afterwards.
/// </summary>
internal sealed class AuditPending(byte[] body, ActivityContext waiter)
{
    private const int Waiting = 0;
    private const int Taken = 1;
    private const int GivenUp = 2;

    private int _state;

    /// <summary>The record's members (<see cref="AuditLines.Signed"/>); its writer adds <c>seq</c> and <c>prev</c>.</summary>
    public byte[] Body { get; } = body;

    /// <summary>The span of the caller's wait (default without one): the write that carries the record links to it.</summary>
    public ActivityContext Waiter { get; } = waiter;

    /// <summary>
    /// Completed when the record's block is acknowledged; faulted when its write failed. Its continuations run where it
    /// is completed: <see cref="AcknowledgeAll"/> and <see cref="FailAll"/> decide where.
    /// </summary>
    public TaskCompletionSource Durable { get; } = new();

    /// <summary>The stream its block went to, once <see cref="Durable"/> has completed.</summary>
    public string? Stream { get; private set; }

    /// <summary>How many records its block carried, once <see cref="Durable"/> has completed.</summary>
    public int GroupSize { get; private set; }

    /// <summary>Its block is acknowledged: records where and with how many others, then completes <see cref="Durable"/>.</summary>
    public void Acknowledge(string stream, int groupSize)
    {
        Stream = stream;
        GroupSize = groupSize;
        Durable.TrySetResult();
    }

    /// <summary>
    /// Acknowledges every record of one block: each caller's continuation (its answer) goes to the thread pool but
    /// the last one's, which runs on the writer's thread, so a block of one costs no thread hop.
    /// </summary>
    public static void AcknowledgeAll(List<AuditPending> block, string stream) => CompleteAll(block, item => item.Acknowledge(stream, block.Count));

    /// <summary>Fails every record of one block with <paramref name="error"/>, where <see cref="AcknowledgeAll"/> would complete it.</summary>
    public static void FailAll(List<AuditPending> block, Exception error) => CompleteAll(block, item => item.Durable.TrySetException(error));

    private static void CompleteAll(List<AuditPending> block, Action<AuditPending> complete)
    {
        for (var i = 0; i < block.Count - 1; i++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(complete, block[i], preferLocal: false);
        }

        if (block.Count > 0)
        {
            complete(block[^1]);
        }
    }

    /// <summary>A writer takes the record for its next write: false when its caller has given it up.</summary>
    public bool TryTake() => Interlocked.CompareExchange(ref _state, Taken, Waiting) == Waiting;

    /// <summary>
    /// The caller stops waiting: true when no writer had taken the record, which is then never written; false when a
    /// write holding it is under way, and may still land (a record without an answer, docs/audit-trail.md).
    /// </summary>
    public bool GiveUp() => Interlocked.CompareExchange(ref _state, GivenUp, Waiting) == Waiting;
}
