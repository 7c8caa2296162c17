namespace WidgetSigning.Callers;

/// <summary>503: the caller's grants could not be read (the grants table did not answer); nothing was signed.</summary>
internal sealed class GrantsUnavailableException : Exception
{
    /// <summary>Creates the exception.</summary>
    public GrantsUnavailableException()
        : this("The caller's grants could not be read; try again later.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public GrantsUnavailableException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public GrantsUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>When to try again.</summary>
    public TimeSpan RetryAfter { get; init; } = TimeSpan.FromSeconds(10);
}
