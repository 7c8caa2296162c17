using System.Text.RegularExpressions;

namespace AuditTrail;

/// <summary>The contract's blob names: <c>streams/&lt;process&gt;/&lt;opened&gt;.jsonl</c> and <c>anchors/&lt;process&gt;/&lt;time&gt;.json</c>.</summary>
internal static partial class BlobNames
{
    /// <summary>The prefix of every stream.</summary>
    public const string Streams = "streams/";

    /// <summary>The prefix of every anchor.</summary>
    public const string Anchors = "anchors/";

    /// <summary>The process a stream or anchor belongs to, or null when <paramref name="name"/> is not named as the contract says.</summary>
    public static string? ProcessOf(string name) =>
        StreamName().Match(name) is { Success: true } stream ? stream.Groups[1].Value :
        AnchorName().Match(name) is { Success: true } anchor ? anchor.Groups[1].Value : null;

    [GeneratedRegex(@"^streams/([a-z0-9-]{1,128})/[0-9]{8}T[0-9]{9}Z\.jsonl\z")]
    private static partial Regex StreamName();

    [GeneratedRegex(@"^anchors/([a-z0-9-]{1,128})/[0-9]{8}T[0-9]{9}Z\.json\z")]
    private static partial Regex AnchorName();
}
