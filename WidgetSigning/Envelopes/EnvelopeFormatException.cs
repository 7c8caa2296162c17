namespace WidgetSigning.Envelopes;

/// <summary>
/// The input is not a valid widget envelope. The message is safe to return to the client: it names
/// what is wrong and, where there is one, the JSON path (<see cref="JsonPath"/>).
/// </summary>
internal sealed class EnvelopeFormatException : Exception
{
    /// <summary>Creates the exception.</summary>
    public EnvelopeFormatException()
        : this("The envelope is invalid.", "$")
    {
    }

    /// <summary>Creates the exception.</summary>
    public EnvelopeFormatException(string message)
        : this(message, "$")
    {
    }

    /// <summary>Creates the exception.</summary>
    public EnvelopeFormatException(string message, Exception innerException)
        : base(message, innerException)
    {
        JsonPath = "$";
    }

    /// <summary>Creates the exception for the value at <paramref name="jsonPath"/>.</summary>
    public EnvelopeFormatException(string message, string jsonPath, Exception? innerException = null)
        : base(message, innerException)
    {
        JsonPath = jsonPath;
    }

    /// <summary>The JSON path of the offending value, <c>$</c> for the document itself.</summary>
    public string JsonPath { get; }
}
