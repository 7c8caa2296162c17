namespace WidgetSigning.Queues;

/// <summary>
/// The message can never be signed (a malformed claim check, a missing or oversized claim blob, undecodable text).
/// A permanent failure: the message goes to the rejected queue with <see cref="Exception.Message"/> as the reason.
/// </summary>
internal sealed class MessageRejectedException : Exception
{
    /// <summary>Creates the exception.</summary>
    public MessageRejectedException()
        : this("The message was rejected.", "$")
    {
    }

    /// <summary>Creates the exception.</summary>
    public MessageRejectedException(string message)
        : this(message, "$")
    {
    }

    /// <summary>Creates the exception.</summary>
    public MessageRejectedException(string message, Exception innerException)
        : base(message, innerException)
    {
        JsonPath = "$";
    }

    /// <summary>Creates the exception for the value at <paramref name="jsonPath"/>.</summary>
    public MessageRejectedException(string message, string jsonPath, Exception? innerException = null)
        : base(message, innerException)
    {
        JsonPath = jsonPath;
    }

    /// <summary>The JSON path of the offending value in the message, <c>$</c> for the message itself.</summary>
    public string JsonPath { get; }
}
