namespace FunctionApp.Keys;

/// <summary>
/// One immutable snapshot of the keys read from Key Vault: the current version (with its validity window, checked at the
/// moment of use) or why there is none, and the earlier versions that still verify, each with the time it was replaced
/// (so the age limit is checked at the moment of use too).
/// </summary>
internal sealed class KeyVaultKeySet
{
    public KeyVaultKeySet(SigningKey? current, KeyWindow currentWindow, IReadOnlyList<PreviousKey> previous, string? currentVersion = null, string? unusableReason = null)
    {
        Current = current;
        CurrentWindow = currentWindow;
        Previous = previous;
        CurrentVersion = current?.KeyId ?? currentVersion;
        UnusableReason = unusableReason;
    }

    /// <summary>The current version's key; null when Key Vault refused to hand it out (disabled, deleted, access removed).</summary>
    public SigningKey? Current { get; }

    /// <summary>When <see cref="Current"/> may be used (Key Vault's <c>nbf</c> and <c>exp</c>).</summary>
    public KeyWindow CurrentWindow { get; }

    /// <summary>The current version's id, when known, even if its key is not usable.</summary>
    public string? CurrentVersion { get; }

    /// <summary>Why there is no usable current key at refresh time; null when there is one.</summary>
    public string? UnusableReason { get; }

    public IReadOnlyList<PreviousKey> Previous { get; }

    /// <summary>The key to sign with at <paramref name="now"/>, or null (fail closed: revoked, expired or not yet valid).</summary>
    public SigningKey? CurrentAt(DateTimeOffset now) => Current is not null && CurrentWindow.Contains(now) ? Current : null;

    /// <summary>Why <see cref="CurrentAt"/> gives null at <paramref name="now"/>; null when it does not.</summary>
    public string? UnusableAt(DateTimeOffset now) => CurrentAt(now) is not null
        ? null
        : UnusableReason ?? CurrentWindow.Describe(now);

    /// <summary>A key this snapshot already holds (versions are immutable, so it never needs fetching again).</summary>
    public SigningKey? Cached(string version)
    {
        if (Current is not null && string.Equals(Current.KeyId, version, StringComparison.Ordinal))
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
        if (CurrentAt(now) is { } current && string.Equals(current.KeyId, keyId, StringComparison.Ordinal))
        {
            return current;
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
        var keys = new List<SigningKey>(Previous.Count + 1);
        if (CurrentAt(now) is { } current)
        {
            keys.Add(current);
        }

        foreach (var previous in Previous)
        {
            if (previous.IsAccepted(now, maxAge))
            {
                keys.Add(previous.Key);
            }
        }

        return keys;
    }

    /// <summary>An earlier version, when a newer one replaced it, and its own validity window.</summary>
    internal sealed record PreviousKey(SigningKey Key, DateTimeOffset ReplacedOn, KeyWindow Window)
    {
        public bool IsAccepted(DateTimeOffset now, TimeSpan maxAge) => now - ReplacedOn <= maxAge && Window.Contains(now);
    }

    /// <summary>Key Vault's activation (<c>nbf</c>) and expiry (<c>exp</c>) of a version; either may be absent.</summary>
    internal readonly record struct KeyWindow(DateTimeOffset? NotBefore, DateTimeOffset? ExpiresOn)
    {
        public bool Contains(DateTimeOffset now) => (NotBefore is null || NotBefore <= now) && (ExpiresOn is null || now < ExpiresOn);

        public string Describe(DateTimeOffset now) =>
            ExpiresOn is { } expires && now >= expires ? $"it expired at {expires:u}"
            : NotBefore is { } notBefore && now < notBefore ? $"it is not valid before {notBefore:u}"
            : "it is not usable";
    }
}
