namespace AuditTrail;

/// <summary>An anchor blob as read: its record, or what makes it unreadable (reported when the anchors are checked).</summary>
/// <param name="Name">The blob's name.</param>
/// <param name="Record">The parsed anchor, or null.</param>
/// <param name="Problem">Why it could not be parsed, or null.</param>
internal sealed record AnchorEntry(string Name, AnchorRecord? Record, string? Problem);
