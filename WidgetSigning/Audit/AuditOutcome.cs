namespace WidgetSigning.Audit;

/// <summary>What an audited call or message came to; the <c>Outcome</c> field of an audit record.</summary>
internal static class AuditOutcome
{
    /// <summary>An envelope was signed and the signature returned or sent.</summary>
    public const string Signed = "signed";

    /// <summary>A signature was checked (the record's status says whether it matched).</summary>
    public const string Verified = "verified";

    /// <summary>Key states were read.</summary>
    public const string KeysRead = "keys-read";

    /// <summary>An HTTP call was answered with a problem; nothing was signed.</summary>
    public const string Refused = "refused";

    /// <summary>A queue message was rejected (moved to the rejected queue); nothing was signed.</summary>
    public const string Rejected = "rejected";
}
