namespace WidgetSigning.Callers;

/// <summary>503: the token issuer's OpenID configuration or signing keys could not be obtained, so no token can be checked.</summary>
internal sealed class TokenValidationUnavailableException : Exception
{
    /// <summary>Creates the exception.</summary>
    public TokenValidationUnavailableException()
        : this("The token issuer's signing keys could not be obtained; try again later.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public TokenValidationUnavailableException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public TokenValidationUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>When to try again.</summary>
    public TimeSpan RetryAfter { get; init; } = TimeSpan.FromSeconds(30);
}
