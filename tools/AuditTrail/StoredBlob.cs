namespace AuditTrail;

/// <summary>A blob as the listing reports it.</summary>
/// <param name="Name">The blob's name.</param>
/// <param name="Length">Its size in bytes.</param>
/// <param name="IsAppendBlob">True for an append blob (streams must be).</param>
internal sealed record StoredBlob(string Name, long Length, bool IsAppendBlob);
