using WidgetSigning.Keys;

namespace WidgetSigning.Callers;

/// <summary>
/// 403: the caller has no grant for a receiver it asked to sign for. Checked before any key is looked up, so the answer
/// says nothing about whether the receiver exists.
/// </summary>
internal sealed class ReceiverNotGrantedException : Exception
{
    /// <summary>Creates the exception for <paramref name="receiver"/>.</summary>
    public ReceiverNotGrantedException(ReceiverId receiver)
        : base($"The caller is not granted receiver '{receiver.Value}'; nothing was signed.")
    {
        Receiver = receiver;
    }

    /// <summary>Creates the exception.</summary>
    public ReceiverNotGrantedException()
        : base("The caller is not granted the receiver.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public ReceiverNotGrantedException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public ReceiverNotGrantedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The receiver not granted.</summary>
    public ReceiverId? Receiver { get; }
}
