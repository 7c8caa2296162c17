using System.Text.Json;

namespace AuditTrail;

/// <summary>The fields of one stream line the chain rules need (parsed by name; the raw bytes are hashed elsewhere).</summary>
internal sealed class StreamLine
{
    private StreamLine(long seq, string prev, string kind)
    {
        Seq = seq;
        Prev = prev;
        Kind = kind;
    }

    /// <summary><c>seq</c>.</summary>
    public long Seq { get; }

    /// <summary><c>prev</c>.</summary>
    public string Prev { get; }

    /// <summary><c>kind</c>: open, signed or seal.</summary>
    public string Kind { get; }

    /// <summary>An open's <c>stream</c>.</summary>
    public string? Stream { get; private init; }

    /// <summary>An open's <c>process</c>.</summary>
    public string? Process { get; private init; }

    /// <summary>An open's <c>prevStream</c> (null for a process's first stream).</summary>
    public string? PrevStream { get; private init; }

    /// <summary>An open's or seal's <c>kid</c>.</summary>
    public string? Kid { get; private init; }

    /// <summary>A seal's <c>signature</c>.</summary>
    public string? Signature { get; private init; }

    /// <summary>Parses a line; null with <paramref name="problem"/> when it is not a JSON object with seq, prev and kind.</summary>
    public static StreamLine? Parse(ReadOnlyMemory<byte> bytes, out string? problem)
    {
        try
        {
            using var document = JsonDocument.Parse(bytes, AuditJson.Options);
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                problem = "is not a JSON object";
                return null;
            }

            var seq = AuditJson.Integer(root, "seq");
            var prev = AuditJson.String(root, "prev");
            var kind = AuditJson.String(root, "kind");
            if (seq is null || prev is null || kind is null)
            {
                problem = "has no integer seq, string prev and string kind";
                return null;
            }

            if (!AuditJson.TryString(root, "prevStream", out var prevStream))
            {
                problem = "has a prevStream that is neither a string nor null";
                return null;
            }

            problem = null;
            return new StreamLine(seq.Value, prev, kind)
            {
                Stream = AuditJson.String(root, "stream"),
                Process = AuditJson.String(root, "process"),
                PrevStream = prevStream,
                Kid = AuditJson.String(root, "kid"),
                Signature = AuditJson.String(root, "signature"),
            };
        }
        catch (JsonException)
        {
            problem = "is not JSON";
            return null;
        }
    }
}
