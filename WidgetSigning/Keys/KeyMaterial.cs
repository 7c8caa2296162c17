using System.Security.Cryptography;

namespace WidgetSigning.Keys;

/// <summary>
/// Decodes a stored key value, the one format of Key Vault secrets and development settings (docs/keys.md): an HMAC
/// key (<c>whsec_</c> + base64, or bare base64, of at least 32 bytes), an Ed25519 key (<c>whsk_</c> + base64 of its
/// 32-byte seed, or of 64 bytes: seed then public key), or one of each separated by a space, to sign with both. Reasons
/// for refusal never contain the value.
/// </summary>
internal static class KeyMaterial
{
    /// <summary>The HMAC key's prefix in Standard Webhooks' format.</summary>
    public const string HmacPrefix = "whsec_";

    /// <summary>The content type receiver-key.sh gives an HMAC key's secret version.</summary>
    public const string HmacContentType = "application/x-hmac-sha256-key";

    /// <summary>The content type receiver-key.sh gives an Ed25519 key's secret version.</summary>
    public const string Ed25519ContentType = "application/x-ed25519-key";

    /// <summary>The longest value read: two keys with their prefixes, with room to spare; anything longer is refused unread.</summary>
    public const int MaxValueLength = 1024;

    /// <summary>
    /// Returns the key, or null with a value-free <paramref name="reason"/>. A <paramref name="contentType"/> naming one
    /// scheme (the two this service's scripts write) must agree with the keys the value holds.
    /// </summary>
    public static SigningKey? TryDecode(string? value, string keyId, DateTimeOffset? createdOn, out string reason, string? contentType = null)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            reason = "the value is empty";
            return null;
        }

        if (value.Length > MaxValueLength)
        {
            reason = $"the value is {value.Length} characters; a key value is at most {MaxValueLength}";
            return null;
        }

        var text = value.AsSpan().Trim();
        var space = text.IndexOf(' ');
        var first = space < 0 ? text : text[..space];
        var second = space < 0 ? [] : text[(space + 1)..];
        if (second.Contains(' '))
        {
            reason = "the value holds more than two keys; it holds at most one HMAC key and one Ed25519 key";
            return null;
        }

        byte[]? hmac = null;
        Ed25519Key? ed25519 = null;
        try
        {
            if (!TryPart(first, ref hmac, ref ed25519, out reason) || (!second.IsEmpty && !TryPart(second, ref hmac, ref ed25519, out reason)))
            {
                return null;
            }

            if (contentType is not null && Disagrees(contentType, hmac is not null, ed25519 is not null) is { } mismatch)
            {
                reason = mismatch;
                return null;
            }

            reason = string.Empty;
            return new SigningKey(keyId, hmac, ed25519, createdOn);
        }
        finally
        {
            if (hmac is not null)
            {
                CryptographicOperations.ZeroMemory(hmac);
            }
        }
    }

    private static bool TryPart(ReadOnlySpan<char> part, ref byte[]? hmac, ref Ed25519Key? ed25519, out string reason)
    {
        if (part.StartsWith(Ed25519Key.PrivatePrefix, StringComparison.Ordinal))
        {
            if (ed25519 is not null)
            {
                reason = "the value holds two Ed25519 keys; it holds at most one of each scheme";
                return false;
            }

            ed25519 = Ed25519Key.TryParse(part[Ed25519Key.PrivatePrefix.Length..], out reason);
            return ed25519 is not null;
        }

        if (part.StartsWith(Ed25519Key.PublicPrefix, StringComparison.Ordinal))
        {
            reason = "the value is a public key (whpk_), which cannot sign; store the private key (whsk_) and hand out the public one";
            return false;
        }

        if (hmac is not null)
        {
            reason = "the value holds two HMAC keys; it holds at most one of each scheme";
            return false;
        }

        var base64 = part.StartsWith(HmacPrefix, StringComparison.Ordinal) ? part[HmacPrefix.Length..] : part;
        var buffer = new byte[(base64.Length * 3 / 4) + 3];
        if (!Convert.TryFromBase64Chars(base64, buffer, out var length))
        {
            CryptographicOperations.ZeroMemory(buffer);
            reason = "the value is not an HMAC key (whsec_ or bare base64) or an Ed25519 key (whsk_)";
            return false;
        }

        if (length < SigningKey.MinimumKeyBytes)
        {
            CryptographicOperations.ZeroMemory(buffer);
            reason = $"the HMAC key decodes to {length} bytes; at least {SigningKey.MinimumKeyBytes} are required";
            return false;
        }

        hmac = buffer.AsSpan(0, length).ToArray();
        CryptographicOperations.ZeroMemory(buffer);
        reason = string.Empty;
        return true;
    }

    private static string? Disagrees(string contentType, bool hasHmac, bool hasEd25519)
    {
        if (contentType.StartsWith(HmacContentType, StringComparison.OrdinalIgnoreCase) && hasEd25519)
        {
            return $"its content type says HMAC ({HmacContentType}) but the value holds an Ed25519 key";
        }

        return contentType.StartsWith(Ed25519ContentType, StringComparison.OrdinalIgnoreCase) && hasHmac
            ? $"its content type says Ed25519 ({Ed25519ContentType}) but the value holds an HMAC key"
            : null;
    }
}
