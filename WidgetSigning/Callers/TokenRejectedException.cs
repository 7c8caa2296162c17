namespace WidgetSigning.Callers;

/// <summary>
/// 401: the request carries no usable bearer token. <see cref="Exception.Message"/> says why in fixed words (never a
/// part of the token); <see cref="ErrorCode"/> is the RFC 6750 code for <c>WWW-Authenticate</c> (null when no token was
/// sent at all, as RFC 6750 §3.1 asks).
/// </summary>
internal sealed class TokenRejectedException : Exception
{
    /// <summary>Creates the exception.</summary>
    public TokenRejectedException(string message, string? errorCode = InvalidToken, Exception? innerException = null)
        : base(message, innerException)
    {
        ErrorCode = errorCode;
    }

    /// <summary>Creates the exception.</summary>
    public TokenRejectedException()
        : this("The bearer token is not valid.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public TokenRejectedException(string message)
        : this(message, InvalidToken)
    {
    }

    /// <summary>Creates the exception.</summary>
    public TokenRejectedException(string message, Exception innerException)
        : this(message, InvalidToken, innerException)
    {
    }

    /// <summary>RFC 6750's code for a token that is malformed, expired, revoked or not for this resource.</summary>
    public const string InvalidToken = "invalid_token";

    /// <summary>RFC 6750's code for a request that is malformed (two tokens, a scheme other than Bearer).</summary>
    public const string InvalidRequest = "invalid_request";

    /// <summary>The RFC 6750 <c>error</c>, or null when the request had no credentials at all.</summary>
    public string? ErrorCode { get; }
}
