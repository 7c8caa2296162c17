using System.Buffers;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// Formats one receiver's <c>webhook-signature</c> header: <c>v1,&lt;base64&gt;</c> per HMAC key, current first, then
/// <c>v1a,&lt;base64&gt;</c> per Ed25519 key, space-separated.
/// </summary>
internal static class WebhookSignatureHeader
{
    // "v1," + 44 base64 characters + a space.
    private const int EntryChars = 3 + 44 + 1;

    // "v1a," + 88 base64 characters + a space.
    private const int Ed25519EntryChars = 4 + 88 + 1;

    /// <summary>
    /// The header for keys <paramref name="first"/> to <paramref name="first"/> + <paramref name="count"/> of
    /// <paramref name="macs"/>: their prefixed MACs from <paramref name="values"/> when the id was known before the pass
    /// (<paramref name="prefixed"/>), else each computed now over <paramref name="bytes"/>. Written once into a stack
    /// buffer, so a signature costs one header string rather than a builder and a string per entry.
    /// </summary>
    public static string Format(
        KeyMacs macs, Signature[] values, int first, int count, string webhookId, long timestamp, ReadOnlySequence<byte> bytes, bool prefixed, byte[][] v1a)
    {
        var size = (count * EntryChars) + (v1a.Length * Ed25519EntryChars);
        var header = size <= 1024 ? stackalloc char[size] : new char[size];
        var length = 0;
        for (var i = 0; i < count; i++)
        {
            if (i > 0)
            {
                header[length++] = ' ';
            }

            var entry = prefixed ? values[macs.PrefixedAt(first + i)] : StandardWebhooks.Sign(macs.Key(first + i), webhookId, timestamp, bytes);
            StandardWebhooks.VersionPrefix.CopyTo(header[length..]);
            length += StandardWebhooks.VersionPrefix.Length;
            Convert.TryToBase64Chars(entry.Bytes, header[length..], out var written);
            length += written;
        }

        foreach (var entry in v1a)
        {
            if (length > 0)
            {
                header[length++] = ' ';
            }

            StandardWebhooks.Ed25519VersionPrefix.CopyTo(header[length..]);
            length += StandardWebhooks.Ed25519VersionPrefix.Length;
            Convert.TryToBase64Chars(entry, header[length..], out var written);
            length += written;
        }

        return new string(header[..length]);
    }
}
