namespace AuditTrail;

/// <summary>What <see cref="BoundedLineReader.ReadAsync"/> found.</summary>
internal enum LineStatus
{
    /// <summary>A whole line (its bytes without the <c>\n</c>).</summary>
    Line,

    /// <summary>No more bytes.</summary>
    End,

    /// <summary>A line longer than <see cref="BoundedLineReader.MaxLineBytes"/>; reading stops.</summary>
    TooLong,

    /// <summary>Bytes at the end that no <c>\n</c> closes.</summary>
    Unterminated,
}
