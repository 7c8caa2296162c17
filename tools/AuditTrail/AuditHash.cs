using System.Security.Cryptography;

namespace AuditTrail;

/// <summary>The contract's hashes: SHA-256, lowercase hex.</summary>
internal static class AuditHash
{
    /// <summary>The hash that stands for "nothing before": 64 zeros.</summary>
    public static readonly string Zeros = new('0', 64);

    /// <summary>SHA-256 of <paramref name="bytes"/> as 64 lowercase hex characters.</summary>
    public static string Of(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(SHA256.HashData(bytes));

    /// <summary>True for exactly 64 lowercase hex characters.</summary>
    public static bool IsHash(string? value) =>
        value is { Length: 64 } && value.All(c => c is (>= '0' and <= '9') or (>= 'a' and <= 'f'));
}
