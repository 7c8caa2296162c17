namespace AuditTrail;

/// <summary>The first break in the chain, in the words of the storage contract (exit 1).</summary>
internal sealed class ChainBreakException : Exception
{
    public ChainBreakException(string message)
        : base(message)
    {
    }

    public ChainBreakException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public ChainBreakException()
    {
    }
}
