namespace WidgetSigning.Queues;

/// <summary>
/// What one queue message's run came to (<see cref="QueueSigningHandler.HandleAsync"/>): forwarded to the output queue,
/// rejected to the rejected queue (both complete the message), or released: not the message's fault (the memory budget
/// is spent), so the host's adapter hands it back after <see cref="ReleasedFor"/> without counting a failure. A run that
/// should be retried throws instead.
/// </summary>
public sealed class QueueOutcome
{
    private readonly string _name;

    private QueueOutcome(string name, TimeSpan? releasedFor)
    {
        _name = name;
        ReleasedFor = releasedFor;
    }

    /// <summary>Signed and forwarded.</summary>
    public static QueueOutcome Forwarded { get; } = new("forwarded", null);

    /// <summary>Rejected with its reason; not retried.</summary>
    public static QueueOutcome Rejected { get; } = new("rejected", null);

    /// <summary>When the message was released, how long to wait before it is handed out again; null otherwise.</summary>
    public TimeSpan? ReleasedFor { get; }

    /// <summary>Released, to be handed out again after <paramref name="retryAfter"/>.</summary>
    public static QueueOutcome Released(TimeSpan retryAfter)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(retryAfter, TimeSpan.Zero);
        return new("released", retryAfter);
    }

    /// <inheritdoc />
    public override string ToString() => _name;
}
