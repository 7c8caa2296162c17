using System.Security.Cryptography;

namespace WidgetSigning.Keys;

/// <summary>Decodes a stored key (base64 of at least 32 bytes). Reasons for refusal never contain the value.</summary>
internal static class KeyMaterial
{
    /// <summary>Returns the key, or null with a value-free <paramref name="reason"/>.</summary>
    public static SigningKey? TryDecode(string? base64, string keyId, DateTimeOffset? createdOn, out string reason)
    {
        if (string.IsNullOrWhiteSpace(base64))
        {
            reason = "the value is empty";
            return null;
        }

        var buffer = new byte[(base64.Length * 3 / 4) + 3];
        try
        {
            if (!Convert.TryFromBase64String(base64.Trim(), buffer, out var length))
            {
                reason = "the value is not base64";
                return null;
            }

            if (length < SigningKey.MinimumKeyBytes)
            {
                reason = $"the value decodes to {length} bytes; at least {SigningKey.MinimumKeyBytes} are required";
                return null;
            }

            reason = string.Empty;
            return new SigningKey(keyId, buffer.AsSpan(0, length), createdOn);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(buffer);
        }
    }
}
