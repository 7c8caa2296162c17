namespace WidgetSigning.Keys;

/// <summary>
/// No signing key could be obtained (for example, Key Vault is unreachable and nothing is cached).
/// A transient condition: HTTP answers 503 with Retry-After, queue messages are retried.
/// </summary>
internal sealed class SigningKeyUnavailableException : Exception
{
    /// <summary>Creates the exception.</summary>
    public SigningKeyUnavailableException()
        : this("No signing key is available yet.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public SigningKeyUnavailableException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public SigningKeyUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>How long a client should wait before trying again.</summary>
    public TimeSpan RetryAfter { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>The receiver whose key is unavailable (every other receiver may still sign), where known.</summary>
    public ReceiverId? Receiver { get; init; }
}
