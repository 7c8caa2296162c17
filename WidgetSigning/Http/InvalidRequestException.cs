namespace WidgetSigning.Http;

/// <summary>A request field other than the envelope (a query parameter, a verify field) is invalid.</summary>
internal sealed class InvalidRequestException : Exception
{
    /// <summary>Creates the exception.</summary>
    public InvalidRequestException()
        : this("The request is invalid.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public InvalidRequestException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public InvalidRequestException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The JSON path of the offending value, if it is in the body.</summary>
    public string? JsonPath { get; init; }
}
