using Azure.Storage.Blobs;
using WidgetSigning.Primitives;

namespace WidgetSigning.Queues;

/// <summary>
/// Confines a claim check's blob name to the claim-check container. The name is client text: a name with <c>..</c>
/// segments, a leading <c>/</c> or a <c>\</c> could make a URI-building client address another container of the
/// account, so such names are refused outright (<see cref="Validate"/>), and the blob the storage client finally
/// addresses is checked to lie under the container's path, with no query or fragment (<see cref="Resolve"/>), whatever
/// the client normalises or escapes.
/// </summary>
internal static class ClaimCheckBlobName
{
    /// <summary>The longest blob name accepted (Azure Storage's own limit).</summary>
    public const int MaxLength = 1024;

    /// <summary>Returns null when <paramref name="name"/> is an acceptable blob name, else what is wrong with it (no echo of the name).</summary>
    public static string? Validate(string? name)
    {
        if (string.IsNullOrEmpty(name) || name.Length > MaxLength)
        {
            return $"must be a blob name of 1-{MaxLength} characters.";
        }

        if (name[0] == '/')
        {
            return "must not start with '/': it names a blob inside the claim-check container.";
        }

        foreach (var c in name)
        {
            if (c == '\\')
            {
                return "must not contain '\\'.";
            }

            if (char.IsControl(c))
            {
                return "must not contain control characters.";
            }
        }

        // One pass over the '/'-separated segments: "." and ".." would walk out of the container once a URI is built.
        var start = 0;
        while (start <= name.Length)
        {
            var end = name.IndexOf('/', start);
            if (end < 0)
            {
                end = name.Length;
            }

            var segment = name.AsSpan(start, end - start);
            if (segment is "." or "..")
            {
                return "must not contain '.' or '..' path segments.";
            }

            start = end + 1;
        }

        return null;
    }

    /// <summary>
    /// The blob <paramref name="name"/> of <paramref name="container"/>, after checking that its URI lies under the
    /// container's path.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: the name is not acceptable, or its URI leaves the container.</exception>
    public static BlobClient Resolve(BlobContainerClient container, string name)
    {
        ArgumentNullException.ThrowIfNull(container);
        if (Validate(name) is { } problem)
        {
            throw Problems.MessageRejected($"'blob' {problem}", $"$.{ClaimCheck.MemberName}.blob");
        }

        var blob = container.GetBlobClient(name);
        var containerPath = container.Uri.AbsolutePath.TrimEnd('/') + "/";
        if (!string.Equals(blob.Uri.Scheme, container.Uri.Scheme, StringComparison.OrdinalIgnoreCase) ||
            !string.Equals(blob.Uri.Authority, container.Uri.Authority, StringComparison.OrdinalIgnoreCase) ||
            !blob.Uri.AbsolutePath.StartsWith(containerPath, StringComparison.Ordinal) ||
            blob.Uri.AbsolutePath.Length == containerPath.Length ||
            blob.Uri.Query.Length > 0 || blob.Uri.Fragment.Length > 0 ||
            !string.Equals(blob.BlobContainerName, container.Name, StringComparison.Ordinal))
        {
            throw Problems.MessageRejected("'blob' must name a blob inside the claim-check container.", $"$.{ClaimCheck.MemberName}.blob");
        }

        return blob;
    }
}
