using System.Collections.Concurrent;
using System.Security.Cryptography;
using System.Text;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// Tokens validated recently, by the SHA-256 of the whole token, so a caller's next calls with the same token cost a hash
/// rather than a parse and an RSA verification. An entry lasts until the token's <c>exp</c> and at most
/// <see cref="MaxAge"/> (so a key the issuer withdraws stops its tokens within it); only valid tokens are kept, and at
/// most <see cref="MaxEntries"/>. Hand-written: Microsoft.IdentityModel keeps no such cache.
/// </summary>
internal sealed class ValidatedTokenCache(TimeProvider time)
{
    /// <summary>The longest an entry is reused.</summary>
    public static readonly TimeSpan MaxAge = TimeSpan.FromMinutes(5);

    /// <summary>The most entries kept.</summary>
    public const int MaxEntries = 10_000;

    private readonly ConcurrentDictionary<string, Entry> _entries = new(StringComparer.Ordinal);

    /// <summary>The number of entries (for tests).</summary>
    public int Count => _entries.Count;

    /// <summary>The caller of <paramref name="token"/> if it was validated and its entry has not expired.</summary>
    public bool TryGet(string token, out string key, out CallerIdentity? caller)
    {
        key = KeyOf(token);
        if (_entries.TryGetValue(key, out var entry) && entry.Expires > time.GetUtcNow())
        {
            caller = entry.Caller;
            return true;
        }

        caller = null;
        return false;
    }

    /// <summary>Remembers a validated token's caller until <paramref name="expires"/> (the token's <c>exp</c>), at most <see cref="MaxAge"/>.</summary>
    public void Add(string key, CallerIdentity caller, DateTimeOffset expires)
    {
        var now = time.GetUtcNow();
        if (_entries.Count >= MaxEntries)
        {
            foreach (var (k, e) in _entries)
            {
                if (e.Expires <= now)
                {
                    _entries.TryRemove(k, out _);
                }
            }

            if (_entries.Count >= MaxEntries)
            {
                return;
            }
        }

        var until = now + MaxAge;
        _entries[key] = new Entry(caller, expires < until ? expires : until);
    }

    private static string KeyOf(string token)
    {
        // Tokens are ASCII and at most AuthOptions.MaxAuthorizationLength characters (checked before validation).
        Span<byte> digest = stackalloc byte[32];
        var bytes = token.Length <= 4096 ? stackalloc byte[token.Length] : new byte[token.Length];
        var length = Encoding.ASCII.GetBytes(token, bytes);
        SHA256.HashData(bytes[..length], digest);
        return Convert.ToBase64String(digest);
    }

    private sealed record Entry(CallerIdentity Caller, DateTimeOffset Expires);
}
