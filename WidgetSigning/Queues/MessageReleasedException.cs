namespace WidgetSigning.Queues;

/// <summary>
/// The message cannot be processed on this instance right now for a reason that is not the message's fault (for
/// example the process-wide memory budget for envelopes in flight is spent). Neither a rejection nor a failure: the
/// queue trigger makes the message visible again after <see cref="RetryAfter"/>, does not log it as a failed attempt and
/// never moves it to the poison queue for this. Its own public type, not a problem: the hosts' queue adapters catch it.
/// </summary>
public sealed class MessageReleasedException : Exception
{
    /// <summary>Creates the exception.</summary>
    public MessageReleasedException()
        : this("The message was released back to the queue.", TimeSpan.FromSeconds(1))
    {
    }

    /// <summary>Creates the exception.</summary>
    public MessageReleasedException(string message)
        : this(message, TimeSpan.FromSeconds(1))
    {
    }

    /// <summary>Creates the exception.</summary>
    public MessageReleasedException(string message, Exception innerException)
        : base(message, innerException)
    {
        RetryAfter = TimeSpan.FromSeconds(1);
    }

    /// <summary>Creates the exception with the delay after which the message should become visible again.</summary>
    public MessageReleasedException(string message, TimeSpan retryAfter, Exception? innerException = null)
        : base(message, innerException)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(retryAfter, TimeSpan.Zero);
        RetryAfter = retryAfter;
    }

    /// <summary>How long the message stays invisible before another attempt.</summary>
    public TimeSpan RetryAfter { get; }
}
