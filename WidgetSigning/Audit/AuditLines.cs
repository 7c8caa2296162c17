using System.Buffers;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;

namespace WidgetSigning.Audit;

/// <summary>
/// The trail's lines and anchors, byte for byte as docs/audit-trail.md states them: each line a JSON object whose
/// hash (SHA-256 of its bytes) the next line carries as <c>prev</c>. A line is built in two steps because its
/// <c>seq</c> and <c>prev</c> are known only when its durable write is assembled: the body first, then the line.
/// </summary>
internal static class AuditLines
{
    /// <summary>The hash before a process's first line: 64 zeros.</summary>
    public static readonly string Genesis = new('0', 64);

    private static readonly JsonWriterOptions WriterOptions = new()
    {
        // Readable base64 and ids: the lines are JSON files, never embedded in HTML.
        Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    /// <summary>A signature's record body: <c>{"kind":"signed",…}</c>.</summary>
    public static byte[] Signed(AuditRecord record, DateTimeOffset time)
    {
        ArgumentNullException.ThrowIfNull(record);
        return Write(w =>
        {
            w.WriteString("kind", "signed");
            w.WriteString("time", Time(time));
            w.WriteString("operation", record.Operation);
            if (record.Caller is { } caller)
            {
                w.WriteStartObject("caller");
                w.WriteString("objectId", caller.ObjectId);
                w.WriteString("appId", caller.AppId);
                w.WriteString("tenantId", caller.TenantId);
                w.WriteEndObject();
            }
            else
            {
                w.WriteNull("caller");
            }

            WriteNullable(w, "queue", record.Queue);
            WriteNullable(w, "messageId", record.MessageId);
            w.WriteStartArray("receivers");
            foreach (var receiver in record.SignedReceivers)
            {
                w.WriteStartObject();
                w.WriteString("receiver", receiver.Receiver.Value);
                w.WriteString("keyId", receiver.KeyId);
                w.WriteString("algorithm", receiver.Algorithm);
                w.WriteEndObject();
            }

            w.WriteEndArray();
            WriteNullable(w, "webhookId", record.Signed?.Webhook?.Id ?? record.WebhookId);
            w.WriteNumber("widgetCount", record.Signed?.WidgetCount ?? record.WidgetCount ?? 0);
            w.WriteNumber("canonicalLength", record.Signed?.CanonicalLength ?? record.CanonicalLength ?? 0);
            w.WriteString("canonicalSha256", record.Signed?.CanonicalSha256.ToHex() ?? record.CanonicalSha256 ?? string.Empty);
            w.WriteString("traceId", record.TraceId);
        });
    }

    /// <summary>A stream's first line's body: which stream, whose, and the stream it continues.</summary>
    public static byte[] Open(string stream, string process, DateTimeOffset time, string? prevStream, string kid) => Write(w =>
    {
        w.WriteString("kind", "open");
        w.WriteString("stream", stream);
        w.WriteString("process", process);
        w.WriteString("time", Time(time));
        WriteNullable(w, "prevStream", prevStream);
        w.WriteString("kid", kid);
    });

    /// <summary>A seal's body: the signature over <see cref="SealMessage"/>.</summary>
    public static byte[] Seal(DateTimeOffset time, string kid, ReadOnlySpan<byte> signature)
    {
        var text = Convert.ToBase64String(signature);
        return Write(w =>
        {
            w.WriteString("kind", "seal");
            w.WriteString("time", Time(time));
            w.WriteString("kid", kid);
            w.WriteString("signature", text);
        });
    }

    /// <summary>What a seal signs: the stream, the seal's position and the hash of the line before it.</summary>
    public static byte[] SealMessage(string stream, long seq, string prev) =>
        Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-seal:v1:{stream}:{seq}:{prev}"));

    /// <summary>
    /// Appends the line at <paramref name="seq"/> after the line hashed <paramref name="prev"/>, holding
    /// <paramref name="body"/>'s members, and its newline to <paramref name="block"/>; returns the line's hash. The
    /// line is written once, where the block is sent from, and hashed there.
    /// </summary>
    public static string AppendLine(ArrayBufferWriter<byte> block, long seq, string prev, ReadOnlySpan<byte> body)
    {
        ArgumentNullException.ThrowIfNull(block);
        ArgumentNullException.ThrowIfNull(prev);
        var span = block.GetSpan(MaxHeadBytes + body.Length);
        var at = 0;
        "{\"seq\":"u8.CopyTo(span);
        at += 7;
        seq.TryFormat(span[at..], out var digits, provider: CultureInfo.InvariantCulture);
        at += digits;
        ",\"prev\":\""u8.CopyTo(span[at..]);
        at += 9;
        at += Encoding.UTF8.GetBytes(prev, span[at..]);
        "\","u8.CopyTo(span[at..]);
        at += 2;
        body[1..].CopyTo(span[at..]);
        at += body.Length - 1;
        var hash = Hash(span[..at]);
        span[at] = (byte)'\n';
        block.Advance(at + 1);
        return hash;
    }

    // {"seq":<up to 20 digits>,"prev":"<64 hex>", and the newline, with room to spare.
    private const int MaxHeadBytes = 128;

    /// <summary>An anchor: a process's sealed head, signed, chained to its previous anchor.</summary>
    public static byte[] Anchor(string anchor, string process, DateTimeOffset time, string prevAnchor, string stream, long seq, string head, string kid, Func<byte[], byte[]> sign)
    {
        ArgumentNullException.ThrowIfNull(sign);
        var timeText = Time(time);
        var message = Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-anchor:v1:{anchor}:{process}:{timeText}:{prevAnchor}:{stream}:{seq}:{head}"));
        var signature = Convert.ToBase64String(sign(message));
        return Write(w =>
        {
            w.WriteString("anchor", anchor);
            w.WriteString("process", process);
            w.WriteString("time", timeText);
            w.WriteString("prevAnchor", prevAnchor);
            w.WriteString("stream", stream);
            w.WriteNumber("seq", seq);
            w.WriteString("head", head);
            w.WriteString("kid", kid);
            w.WriteString("signature", signature);
        });
    }

    /// <summary>A key's record, <c>keys/&lt;kid&gt;.json</c>: the public key that checks its seals and anchors.</summary>
    public static byte[] Key(string kid, string publicKey) => Write(w =>
    {
        w.WriteString("kid", kid);
        w.WriteString("publicKey", publicKey);
    });

    /// <summary>The hash of a line or an anchor: SHA-256 of its bytes, lowercase hex.</summary>
    public static string Hash(ReadOnlySpan<byte> bytes)
    {
        Span<byte> hash = stackalloc byte[SHA256.HashSizeInBytes];
        SHA256.HashData(bytes, hash);
        return Hex(hash);
    }

    /// <summary>Lowercase hex.</summary>
    public static string Hex(ReadOnlySpan<byte> bytes) =>
#if NET9_0_OR_GREATER
        Convert.ToHexStringLower(bytes);
#else
        Convert.ToHexString(bytes).ToLowerInvariant();
#endif

    /// <summary>The trail's time format: UTC to the millisecond.</summary>
    public static string Time(DateTimeOffset time) => time.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);

    private static void WriteNullable(Utf8JsonWriter writer, string name, string? value)
    {
        if (value is null)
        {
            writer.WriteNull(name);
        }
        else
        {
            writer.WriteString(name, value);
        }
    }

    private static byte[] Write(Action<Utf8JsonWriter> members)
    {
        var buffer = new ArrayBufferWriter<byte>(512);
        using (var writer = new Utf8JsonWriter(buffer, WriterOptions))
        {
            writer.WriteStartObject();
            members(writer);
            writer.WriteEndObject();
        }

        return buffer.WrittenSpan.ToArray();
    }
}
