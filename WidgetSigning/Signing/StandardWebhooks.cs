using System.Buffers;
using System.Globalization;
using System.Text;
using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// Standard Webhooks 1.0 (https://www.standardwebhooks.com/): header names, the bounds on their values, and the
/// signed-content prefix <c>id.timestamp.</c>. Written here because the spec's own libraries sign a string payload,
/// and ours is the pooled canonical stream, hashed in place.
/// </summary>
internal static class StandardWebhooks
{
    /// <summary>The message id header.</summary>
    public const string IdHeader = "webhook-id";

    /// <summary>The Unix-seconds timestamp header.</summary>
    public const string TimestampHeader = "webhook-timestamp";

    /// <summary>The signatures header: <c>v1,&lt;base64&gt;</c> entries separated by spaces.</summary>
    public const string SignatureHeader = "webhook-signature";

    /// <summary>The version prefix of an HMAC-SHA256 entry.</summary>
    public const string VersionPrefix = "v1,";

    /// <summary>The version prefix of an Ed25519 entry.</summary>
    public const string Ed25519VersionPrefix = "v1a,";

    /// <summary>The longest id accepted (an <c>Idempotency-Key</c>, a queue message id, a generated <c>msg_</c> id).</summary>
    public const int MaxIdLength = 128;

    /// <summary>The most digits of a timestamp (Unix seconds fit in 11 until the year 5138).</summary>
    public const int MaxTimestampDigits = 12;

    /// <summary>The longest <c>webhook-signature</c> header accepted by <c>/api/verify</c>.</summary>
    public const int MaxSignatureHeaderLength = 1024;

    /// <summary>The most space-separated entries in a <c>webhook-signature</c> header.</summary>
    public const int MaxSignatureEntries = 16;

    /// <summary>What a valid id is, for error messages.</summary>
    public const string IdRule = "1 to 128 ASCII letters, digits, '-' or '_'";

    /// <summary>True for 1 to <see cref="MaxIdLength"/> ASCII letters, digits, <c>-</c> or <c>_</c>.</summary>
    /// <remarks>No '.', so <c>id.timestamp.</c> splits one way only; nothing a header or log could misread.</remarks>
    public static bool IsValidId(ReadOnlySpan<char> id)
    {
        if (id.Length is 0 or > MaxIdLength)
        {
            return false;
        }

        foreach (var c in id)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not '-' and not '_')
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>A new unique id (<c>msg_</c> and 32 hex digits) for a request that brought none.</summary>
    public static string NewId() => string.Create(36, Guid.NewGuid(), static (chars, guid) =>
    {
        "msg_".CopyTo(chars);
        guid.TryFormat(chars[4..], out _, "N");
    });

    /// <summary>The state as written in answers.</summary>
    public static string StateName(KeyState state) => state switch
    {
        KeyState.Current => "current",
        KeyState.Staged => "staged",
        _ => "retiring",
    };

    /// <summary>Signs <c>id.timestamp.</c> + <paramref name="canonical"/> under <paramref name="key"/>, streaming over the blocks.</summary>
    public static Signature Sign(SigningKey key, string id, long timestamp, in ReadOnlySequence<byte> canonical)
    {
        ArgumentNullException.ThrowIfNull(key);
        Span<byte> prefix = stackalloc byte[MaxPrefixBytes];
        return key.Sign(prefix[..WritePrefix(prefix, id, timestamp)], canonical);
    }

    /// <summary>The longest prefix <see cref="WritePrefix"/> writes.</summary>
    internal const int MaxPrefixBytes = MaxIdLength + MaxTimestampDigits + 4;

    /// <summary>Writes <c>id.timestamp.</c> as ASCII; returns its length.</summary>
    /// <exception cref="ArgumentException"><paramref name="id"/> breaks <see cref="IsValidId"/>.</exception>
    internal static int WritePrefix(Span<byte> destination, string id, long timestamp)
    {
        if (!IsValidId(id))
        {
            throw new ArgumentException($"A webhook id must be {IdRule}.", nameof(id));
        }

        var written = Encoding.ASCII.GetBytes(id, destination);
        destination[written++] = (byte)'.';
        if (!timestamp.TryFormat(destination[written..], out var digits, default, CultureInfo.InvariantCulture))
        {
            throw new ArgumentOutOfRangeException(nameof(timestamp));
        }

        written += digits;
        destination[written++] = (byte)'.';
        return written;
    }
}
