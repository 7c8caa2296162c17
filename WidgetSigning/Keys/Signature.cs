using System.Security.Cryptography;

namespace WidgetSigning.Keys;

/// <summary>An HMAC-SHA256 value (32 bytes), written as 64 lowercase hex digits.</summary>
internal readonly struct Signature : IEquatable<Signature>
{
    /// <summary>The length of an HMAC-SHA256 value in bytes.</summary>
    public const int Length = 32;

    private static readonly System.Buffers.SearchValues<char> HexDigits = System.Buffers.SearchValues.Create("0123456789abcdefABCDEF");

    private readonly byte[] _bytes;

    /// <summary>Creates a signature from its 32 bytes.</summary>
    public Signature(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length != Length)
        {
            throw new ArgumentException($"An HMAC-SHA256 signature is {Length} bytes.", nameof(bytes));
        }

        _bytes = bytes.ToArray();
    }

    /// <summary>The raw bytes.</summary>
    public ReadOnlySpan<byte> Bytes => _bytes;

    /// <summary>Parses 64 hex digits (either case); false for anything else.</summary>
    public static bool TryParseHex(string? hex, out Signature signature)
    {
        signature = default;
        // Checked first so a client's malformed value never costs an exception inside FromHexString.
        if (hex is null || hex.Length != Length * 2 || hex.AsSpan().ContainsAnyExcept(HexDigits))
        {
            return false;
        }

        signature = new Signature(Convert.FromHexString(hex));
        return true;
    }

    /// <summary>Compares in constant time, so a verifier leaks nothing about how many bytes matched.</summary>
    public bool FixedTimeEquals(Signature other) =>
        _bytes is not null && other._bytes is not null && CryptographicOperations.FixedTimeEquals(_bytes, other._bytes);

    /// <summary>64 lowercase hex digits, as docs/signing-contract.md and the seed's <c>ToFriendlyHashString</c>.</summary>
    public string ToHex() => Convert.ToHexString(_bytes).ToLowerInvariant();

    /// <summary>Base64 (44 characters), the Standard Webhooks <c>v1,</c> form.</summary>
    public string ToBase64() => Convert.ToBase64String(_bytes);

    /// <summary>Parses base64 of exactly 32 bytes; false for anything else.</summary>
    public static bool TryParseBase64(ReadOnlySpan<char> base64, out Signature signature)
    {
        signature = default;
        Span<byte> bytes = stackalloc byte[Length + 3];
        if (base64.Length != 44 || !Convert.TryFromBase64Chars(base64, bytes, out var written) || written != Length)
        {
            return false;
        }

        signature = new Signature(bytes[..Length]);
        return true;
    }

    /// <inheritdoc />
    public override string ToString() => ToHex();

    /// <inheritdoc />
    public bool Equals(Signature other) => FixedTimeEquals(other);

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is Signature other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => _bytes is null ? 0 : BitConverter.ToInt32(_bytes, 0);

    /// <summary>Equality.</summary>
    public static bool operator ==(Signature left, Signature right) => left.Equals(right);

    /// <summary>Inequality.</summary>
    public static bool operator !=(Signature left, Signature right) => !left.Equals(right);
}
