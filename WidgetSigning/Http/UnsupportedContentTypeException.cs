namespace WidgetSigning.Http;

/// <summary>The request's Content-Type is not UTF-8 JSON.</summary>
internal sealed class UnsupportedContentTypeException : Exception
{
    /// <summary>Creates the exception.</summary>
    public UnsupportedContentTypeException()
        : this("The request body must be JSON (Content-Type: application/json; charset=utf-8).")
    {
    }

    /// <summary>Creates the exception.</summary>
    public UnsupportedContentTypeException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public UnsupportedContentTypeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
