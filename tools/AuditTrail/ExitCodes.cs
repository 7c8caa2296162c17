namespace AuditTrail;

/// <summary>The tool's exit codes, as docs/operations.md lists them.</summary>
internal static class ExitCodes
{
    /// <summary><c>verify</c>: the chain holds; <c>find</c>: at least one record matched.</summary>
    public const int Success = 0;

    /// <summary><c>verify</c>: the chain breaks; <c>find</c>: no record matched.</summary>
    public const int Failure = 1;

    /// <summary>A usage error, or the store cannot be read.</summary>
    public const int Usage = 2;
}
