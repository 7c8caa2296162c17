namespace WidgetSigning.Audit;

/// <summary>A record waiting for its durable write: its line's body, and the task its caller awaits.</summary>
internal sealed class AuditPending(byte[] body)
{
    /// <summary>The record's members (<see cref="AuditLines.Signed"/>); its writer adds <c>seq</c> and <c>prev</c>.</summary>
    public byte[] Body { get; } = body;

    /// <summary>Completed when the record's block is acknowledged; faulted when its write failed.</summary>
    public TaskCompletionSource Durable { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}
