using System.Buffers;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// Formats one receiver's <c>webhook-signature</c> header: <c>v1,&lt;base64&gt;</c> per key, current first, space-separated.
/// </summary>
internal static class WebhookSignatureHeader
{
    // "v1," + 44 base64 characters + a space.
    private const int EntryChars = 3 + 44 + 1;

    /// <summary>
    /// The header for keys <paramref name="first"/> to <paramref name="first"/> + <paramref name="count"/> of
    /// <paramref name="macs"/>: their prefixed MACs from <paramref name="values"/> when the id was known before the pass
    /// (<paramref name="prefixed"/>), else each computed now over <paramref name="bytes"/>. Written once into a stack
    /// buffer, so a signature costs one header string rather than a builder and a string per entry.
    /// </summary>
    public static string Format(
        KeyMacs macs, Signature[] values, int first, int count, string webhookId, long timestamp, ReadOnlySequence<byte> bytes, bool prefixed)
    {
        var header = count <= 8 ? stackalloc char[count * EntryChars] : new char[count * EntryChars];
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

        return new string(header[..length]);
    }
}
