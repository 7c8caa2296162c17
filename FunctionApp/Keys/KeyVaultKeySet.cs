namespace FunctionApp.Keys;

/// <summary>
/// One immutable snapshot of the keys read from Key Vault: the current version and the earlier versions that
/// still verify, each with the time it was replaced (so the age limit is checked at the moment of use).
/// </summary>
internal sealed class KeyVaultKeySet
{
    private readonly IReadOnlyList<SigningKey> _all;

    public KeyVaultKeySet(SigningKey current, IReadOnlyList<PreviousKey> previous)
    {
        Current = current;
        Previous = previous;
        var all = new List<SigningKey>(previous.Count + 1) { current };
        all.AddRange(previous.Select(p => p.Key));
        _all = all;
    }

    public SigningKey Current { get; }

    public IReadOnlyList<PreviousKey> Previous { get; }

    /// <summary>A key this snapshot already holds (versions are immutable, so it never needs fetching again).</summary>
    public SigningKey? Cached(string version)
    {
        if (string.Equals(Current.KeyId, version, StringComparison.Ordinal))
        {
            return Current;
        }

        foreach (var previous in Previous)
        {
            if (string.Equals(previous.Key.KeyId, version, StringComparison.Ordinal))
            {
                return previous.Key;
            }
        }

        return null;
    }

    public SigningKey? Find(string keyId, DateTimeOffset now, TimeSpan maxAge)
    {
        if (string.Equals(Current.KeyId, keyId, StringComparison.Ordinal))
        {
            return Current;
        }

        foreach (var previous in Previous)
        {
            if (string.Equals(previous.Key.KeyId, keyId, StringComparison.Ordinal))
            {
                return previous.IsAccepted(now, maxAge) ? previous.Key : null;
            }
        }

        return null;
    }

    public IReadOnlyList<SigningKey> Verification(DateTimeOffset now, TimeSpan maxAge)
    {
        var allAccepted = true;
        foreach (var previous in Previous)
        {
            allAccepted &= previous.IsAccepted(now, maxAge);
        }

        return allAccepted ? _all : [Current, .. Previous.Where(p => p.IsAccepted(now, maxAge)).Select(p => p.Key)];
    }

    /// <summary>An earlier version and when a newer one replaced it.</summary>
    internal sealed record PreviousKey(SigningKey Key, DateTimeOffset ReplacedOn)
    {
        public bool IsAccepted(DateTimeOffset now, TimeSpan maxAge) => now - ReplacedOn <= maxAge;
    }
}
