namespace WidgetSigning.Signing;

/// <summary>
/// The process-wide budget for envelope bytes in flight (<see cref="MemoryBudgetOptions.MaxBytesInFlight"/>) has no room
/// now: not the client's fault and not permanent. HTTP answers 503 with <c>Retry-After</c>; the queue releases the message.
/// </summary>
internal sealed class MemoryBudgetExceededException : Exception
{
    /// <summary>Creates the exception.</summary>
    public MemoryBudgetExceededException()
        : this(0, EnvelopeMemoryBudget.RetryAfter)
    {
    }

    /// <summary>Creates the exception.</summary>
    public MemoryBudgetExceededException(string message)
        : base(message)
    {
        RetryAfter = EnvelopeMemoryBudget.RetryAfter;
    }

    /// <summary>Creates the exception.</summary>
    public MemoryBudgetExceededException(string message, Exception innerException)
        : base(message, innerException)
    {
        RetryAfter = EnvelopeMemoryBudget.RetryAfter;
    }

    /// <summary>Creates the exception for a budget of <paramref name="capacity"/> bytes.</summary>
    public MemoryBudgetExceededException(long capacity, TimeSpan retryAfter)
        : base($"The instance is at its memory budget for envelopes in flight ({capacity} bytes, setting {MemoryBudgetOptions.MaxBytesInFlightSetting}); try again shortly.")
    {
        RetryAfter = retryAfter;
    }

    /// <summary>When to try again.</summary>
    public TimeSpan RetryAfter { get; }
}
