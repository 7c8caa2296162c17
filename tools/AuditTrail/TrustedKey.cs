using System.Security.Cryptography;
using Org.BouncyCastle.Math.EC.Rfc8032;

namespace AuditTrail;

/// <summary>An Ed25519 public key the operator trusts, with its kid (first 16 hex characters of its SHA-256).</summary>
internal sealed class TrustedKey
{
    /// <summary>Bytes of an Ed25519 public key.</summary>
    public const int PublicKeyBytes = 32;

    /// <summary>Bytes of an Ed25519 signature.</summary>
    public const int SignatureBytes = 64;

    private readonly byte[] _publicKey;

    public TrustedKey(byte[] publicKey, string source)
    {
        ArgumentNullException.ThrowIfNull(publicKey);
        if (publicKey.Length != PublicKeyBytes)
        {
            throw new ArgumentException($"An Ed25519 public key is {PublicKeyBytes} bytes.", nameof(publicKey));
        }

        _publicKey = (byte[])publicKey.Clone();
        Kid = KidOf(_publicKey);
        Source = source;
    }

    /// <summary>The key id the writer puts into opens, seals and anchors.</summary>
    public string Kid { get; }

    /// <summary>Where the key came from (an option or a settings file), for the report.</summary>
    public string Source { get; }

    /// <summary>The kid of a 32-byte public key.</summary>
    public static string KidOf(byte[] publicKey) => Convert.ToHexStringLower(SHA256.HashData(publicKey))[..16];

    /// <summary>True when <paramref name="signatureBase64"/> is a 64-byte Ed25519 signature of <paramref name="message"/> by this key.</summary>
    public bool Verifies(string? signatureBase64, byte[] message)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (signatureBase64 is null || signatureBase64.Length != 88)
        {
            return false;
        }

        var signature = new byte[SignatureBytes];
        if (!Convert.TryFromBase64String(signatureBase64, signature, out var written) || written != SignatureBytes)
        {
            return false;
        }

        return Ed25519.Verify(signature, 0, _publicKey, 0, message, 0, message.Length);
    }
}
