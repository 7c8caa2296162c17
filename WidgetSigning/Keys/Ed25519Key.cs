using System.Security.Cryptography;
using Org.BouncyCastle.Math.EC.Rfc8032;

namespace WidgetSigning.Keys;

/// <summary>
/// An Ed25519 private key (RFC 8032, pure: no pre-hash, no context) and its public key. Signs Standard Webhooks'
/// <c>v1a</c> and the plain <c>X-Signature-Ed25519</c>. The seed never leaves this type: <see cref="ToString"/> shows the
/// public key only. BouncyCastle does the curve arithmetic (docs/decisions/ed25519-library.md).
/// </summary>
internal sealed class Ed25519Key
{
    /// <summary>The private key's prefix in Standard Webhooks' key format.</summary>
    public const string PrivatePrefix = "whsk_";

    /// <summary>The public key's prefix.</summary>
    public const string PublicPrefix = "whpk_";

    /// <summary>Bytes in a seed, the private key proper.</summary>
    public const int SeedBytes = 32;

    /// <summary>Bytes in a public key.</summary>
    public const int PublicKeyBytes = 32;

    /// <summary>Bytes in a signature.</summary>
    public const int SignatureBytes = 64;

    private readonly byte[] _seed;
    private readonly byte[] _public;

    static Ed25519Key()
    {
        // The base point's tables, once per process rather than inside the first request's signature.
        Ed25519.Precompute();
    }

    private Ed25519Key(byte[] seed, byte[] publicKey)
    {
        _seed = seed;
        _public = publicKey;
        PublicKeyText = PublicPrefix + Convert.ToBase64String(publicKey);
    }

    /// <summary>The public key.</summary>
    public ReadOnlySpan<byte> PublicKey => _public;

    /// <summary>The public key as <c>whpk_</c> + base64.</summary>
    public string PublicKeyText { get; }

    /// <summary>
    /// Parses the base64 after <c>whsk_</c>: the 32-byte seed, or 64 bytes of seed then public key (Svix's form), whose
    /// public half must be the seed's. Null with a reason that never contains the value.
    /// </summary>
    public static Ed25519Key? TryParse(ReadOnlySpan<char> base64, out string reason)
    {
        Span<byte> buffer = stackalloc byte[(SeedBytes * 2) + 3];
        try
        {
            if (base64.Length > 88 || !Convert.TryFromBase64Chars(base64, buffer, out var length))
            {
                reason = "the whsk_ key is not base64 of 32 or 64 bytes";
                return null;
            }

            if (length is not SeedBytes and not SeedBytes * 2)
            {
                reason = $"the whsk_ key decodes to {length} bytes; an Ed25519 key is 32 bytes (its seed) or 64 (seed and public key)";
                return null;
            }

            var seed = buffer[..SeedBytes].ToArray();
            var publicKey = new byte[PublicKeyBytes];
            Ed25519.GeneratePublicKey(seed, publicKey);
            if (length == SeedBytes * 2 && !CryptographicOperations.FixedTimeEquals(publicKey, buffer.Slice(SeedBytes, PublicKeyBytes)))
            {
                CryptographicOperations.ZeroMemory(seed);
                reason = "the whsk_ key's second half is not the public key of its first half (its seed)";
                return null;
            }

            reason = string.Empty;
            return new Ed25519Key(seed, publicKey);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(buffer);
        }
    }

    /// <summary>Signs <paramref name="message"/> into <paramref name="signature"/> (<see cref="SignatureBytes"/>).</summary>
    public void Sign(ReadOnlySpan<byte> message, Span<byte> signature) =>
        // With the public key given, the library does not derive it again: one scalar multiplication per signature. The
        // spans are typed: with a byte[] second argument the overload taken would be Ed25519ctx's (a context, not a key).
        Ed25519.Sign((ReadOnlySpan<byte>)_seed, (ReadOnlySpan<byte>)_public, message, signature);

    /// <summary>Whether <paramref name="signature"/> is this key's over <paramref name="message"/>.</summary>
    public bool Verify(ReadOnlySpan<byte> message, ReadOnlySpan<byte> signature) =>
        signature.Length == SignatureBytes && Ed25519.Verify(signature, (ReadOnlySpan<byte>)_public, message);

    /// <inheritdoc />
    public override string ToString() => $"Ed25519Key({PublicKeyText})";
}
