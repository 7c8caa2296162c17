namespace WidgetSigning.Keys;

/// <summary>
/// A receiver not cached on this instance could not be looked up now: first-use lookups are rate-limited
/// (<c>Receivers:MaxLookupsPerSecond</c>), so requests naming many unknown receivers cannot become a flood of Key Vault
/// calls. Nothing is signed (HTTP 429 with <c>Retry-After</c>).
/// </summary>
internal sealed class ReceiverLookupsLimitedException : Exception
{
    /// <summary>Creates the exception.</summary>
    public ReceiverLookupsLimitedException()
        : this("Too many receivers were looked up on this instance; try again later.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public ReceiverLookupsLimitedException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public ReceiverLookupsLimitedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>When to try again.</summary>
    public TimeSpan RetryAfter { get; init; } = TimeSpan.FromSeconds(1);
}
