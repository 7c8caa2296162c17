using System.Text.Json;

namespace AuditTrail;

/// <summary>One anchor blob's fields and hash.</summary>
internal sealed class AnchorRecord
{
    /// <summary>The largest anchor blob read (an anchor is a few hundred bytes).</summary>
    public const int MaxBytes = 64 * 1024;

    private AnchorRecord(string anchor, string process, string time, string prevAnchor, string stream, long seq, string head, string kid, string signature)
    {
        Anchor = anchor;
        Process = process;
        Time = time;
        PrevAnchor = prevAnchor;
        Stream = stream;
        Seq = seq;
        Head = head;
        Kid = kid;
        Signature = signature;
    }

    /// <summary><c>anchor</c>: the blob's own name.</summary>
    public string Anchor { get; }

    /// <summary><c>process</c>.</summary>
    public string Process { get; }

    /// <summary><c>time</c>.</summary>
    public string Time { get; }

    /// <summary><c>prevAnchor</c>.</summary>
    public string PrevAnchor { get; }

    /// <summary><c>stream</c>.</summary>
    public string Stream { get; }

    /// <summary><c>seq</c>.</summary>
    public long Seq { get; }

    /// <summary><c>head</c>.</summary>
    public string Head { get; }

    /// <summary><c>kid</c>.</summary>
    public string Kid { get; }

    /// <summary><c>signature</c>.</summary>
    public string Signature { get; }

    /// <summary>The anchor's hash: SHA-256 of its bytes without a trailing <c>\n</c>.</summary>
    public string Hash { get; private init; } = string.Empty;

    /// <summary>The bytes the signature covers.</summary>
    public byte[] SignedBytes() => AuditSignatures.AnchorMessage(Anchor, Process, Time, PrevAnchor, Stream, Seq, Head);

    /// <summary>Parses an anchor blob's bytes; null with <paramref name="problem"/> when a field is missing or mistyped.</summary>
    public static AnchorRecord? Parse(ReadOnlyMemory<byte> bytes, out string? problem)
    {
        if (bytes.Length > 0 && bytes.Span[^1] == (byte)'\n')
        {
            bytes = bytes[..^1];
        }

        try
        {
            using var document = JsonDocument.Parse(bytes, AuditJson.Options);
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                problem = "is not a JSON object";
                return null;
            }

            var fields = new[] { "anchor", "process", "time", "prevAnchor", "stream", "head", "kid", "signature" }
                .Select(name => (Name: name, Value: AuditJson.String(root, name)))
                .ToList();
            var missing = fields.FirstOrDefault(f => f.Value is null).Name;
            var seq = AuditJson.Integer(root, "seq");
            if (missing is not null || seq is null)
            {
                problem = $"has no string {missing ?? "integer seq"}";
                return null;
            }

            problem = null;
            return new AnchorRecord(fields[0].Value!, fields[1].Value!, fields[2].Value!, fields[3].Value!, fields[4].Value!, seq.Value, fields[5].Value!, fields[6].Value!, fields[7].Value!)
            {
                Hash = AuditHash.Of(bytes.Span),
            };
        }
        catch (JsonException)
        {
            problem = "is not JSON";
            return null;
        }
    }
}
