namespace AuditTrail;

/// <summary>
/// Something the operator must fix before the trail can be checked (a usage error, no trusted key, a store that cannot
/// be read): printed alone, exit 2. Its message never holds a connection string or a key.
/// </summary>
internal sealed class OperatorException : Exception
{
    public OperatorException(string message)
        : base(message)
    {
    }

    public OperatorException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public OperatorException()
    {
    }
}
