namespace WidgetSigning.Http;

/// <summary>The request body is larger than <c>Http:MaxRequestBodyBytes</c> (or the host's <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>).</summary>
internal sealed class RequestBodyTooLargeException : Exception
{
    /// <summary>Creates the exception.</summary>
    public RequestBodyTooLargeException()
        : this(0)
    {
    }

    /// <summary>Creates the exception.</summary>
    public RequestBodyTooLargeException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public RequestBodyTooLargeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a limit of <paramref name="limit"/> bytes.</summary>
    public RequestBodyTooLargeException(long limit)
        : base($"The request body exceeds the limit of {limit} bytes (setting {HttpOptions.MaxRequestBodyBytesSetting}).")
    {
        Limit = limit;
    }

    /// <summary>Creates the exception for a limit of <paramref name="limit"/> bytes, with its own <paramref name="message"/>.</summary>
    public RequestBodyTooLargeException(long limit, string message, Exception? innerException)
        : base(message, innerException)
    {
        Limit = limit;
    }

    /// <summary>The limit in bytes.</summary>
    public long Limit { get; }
}
