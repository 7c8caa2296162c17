namespace WidgetSigning.Http;

/// <summary>
/// The client went away before its request was read in full (the connection was reset or aborted). Nothing is signed;
/// the function answers 400 with <see cref="ProblemTypes.ClientClosedRequest"/>, which only the logs see.
/// </summary>
internal sealed class ClientClosedRequestException : Exception
{
    /// <summary>Creates the exception.</summary>
    public ClientClosedRequestException()
        : this("The client closed the request before its body was read.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public ClientClosedRequestException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public ClientClosedRequestException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
