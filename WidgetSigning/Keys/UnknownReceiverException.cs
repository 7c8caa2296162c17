namespace WidgetSigning.Keys;

/// <summary>No key exists for the receiver named: nothing is signed or verified for it (HTTP 404).</summary>
internal sealed class UnknownReceiverException : Exception
{
    /// <summary>Creates the exception.</summary>
    public UnknownReceiverException()
        : this("The receiver is not known.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public UnknownReceiverException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public UnknownReceiverException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for <paramref name="receiver"/>.</summary>
    public UnknownReceiverException(ReceiverId receiver)
        : this($"Receiver '{receiver?.Value}' is not known: no signing key exists for it.")
    {
        Receiver = receiver;
    }

    /// <summary>The receiver named.</summary>
    public ReceiverId? Receiver { get; }
}
