namespace WidgetSigning.Keys;

/// <summary>
/// One immutable snapshot of the keys read from Key Vault: the current version (with its validity window and the time
/// until which the cache may sign with it, both checked at the moment of use) or why there is none; the staged versions
/// (<c>nbf</c> ahead); and the earlier versions that still verify, each with the time it was replaced.
/// </summary>
internal sealed class KeyVaultKeySet
{
    public KeyVaultKeySet(
        SigningKey? current,
        KeyWindow currentWindow,
        IReadOnlyList<PreviousKey> previous,
        string? currentVersion = null,
        string? unusableReason = null,
        IReadOnlyList<StagedKey>? staged = null,
        DateTimeOffset? confirmedAt = null,
        TimeSpan? maxCachedAge = null)
    {
        Current = current;
        CurrentWindow = currentWindow;
        Previous = previous;
        CurrentVersion = current?.KeyId ?? currentVersion;
        UnusableReason = unusableReason;
        Staged = staged ?? [];
        ConfirmedAt = confirmedAt;
        MaxCachedAge = maxCachedAge;
    }

    /// <summary>The current version's key; null when Key Vault refused to hand it out (disabled, deleted, access removed).</summary>
    public SigningKey? Current { get; }

    /// <summary>When <see cref="Current"/> may be used (Key Vault's <c>nbf</c> and <c>exp</c>).</summary>
    public KeyWindow CurrentWindow { get; }

    /// <summary>The current version's id, when known, even if its key is not usable.</summary>
    public string? CurrentVersion { get; }

    /// <summary>Why there is no usable current key at refresh time; null when there is one.</summary>
    public string? UnusableReason { get; }

    /// <summary>Earlier versions that still verify (retiring).</summary>
    public IReadOnlyList<PreviousKey> Previous { get; }

    /// <summary>Enabled versions whose <c>nbf</c> is ahead: they sign alongside the current key, labelled, never alone.</summary>
    public IReadOnlyList<StagedKey> Staged { get; }

    /// <summary>Whether Key Vault answered that the secret does not exist at all (404 listing its versions).</summary>
    public bool SecretMissing { get; init; }

    /// <summary>When Key Vault last confirmed the current version (the refresh that read it).</summary>
    public DateTimeOffset? ConfirmedAt { get; }

    /// <summary>How long after <see cref="ConfirmedAt"/> the current key may still sign (<c>KeyVault:MaxCachedKeyAge</c>).</summary>
    public TimeSpan? MaxCachedAge { get; }

    /// <summary>The key to sign with at <paramref name="now"/>, or null (fail closed: revoked, expired, not yet valid, or unconfirmed for too long).</summary>
    public SigningKey? CurrentAt(DateTimeOffset now) =>
        Current is not null && CurrentWindow.Contains(now) && !IsStale(now) ? Current : null;

    /// <summary>The staged keys that sign with the current one at <paramref name="now"/> (none when nothing signs).</summary>
    public IReadOnlyList<SigningKey> StagedAt(DateTimeOffset now)
    {
        if (Staged.Count == 0 || CurrentAt(now) is null)
        {
            return [];
        }

        var keys = new List<SigningKey>(Staged.Count);
        foreach (var staged in Staged)
        {
            if (staged.Window.ExpiresOn is null || now < staged.Window.ExpiresOn)
            {
                keys.Add(staged.Key);
            }
        }

        return keys;
    }

    /// <summary>
    /// The retiring keys whose Ed25519 part still signs at <paramref name="now"/>: replaced less than
    /// <paramref name="overlap"/> ago, so a receiver whose key set predates the rotation still finds an entry it can check.
    /// </summary>
    public IReadOnlyList<SigningKey> OverlapAt(DateTimeOffset now, TimeSpan overlap)
    {
        List<SigningKey>? keys = null;
        if (CurrentAt(now) is null)
        {
            return [];
        }

        foreach (var previous in Previous)
        {
            if (previous.Key.Ed25519 is not null && now - previous.ReplacedOn < overlap && previous.Window.Contains(now))
            {
                (keys ??= []).Add(previous.Key);
            }
        }

        return keys ?? (IReadOnlyList<SigningKey>)[];
    }

    /// <summary>Why <see cref="CurrentAt"/> gives null at <paramref name="now"/>; null when it does not.</summary>
    public string? UnusableAt(DateTimeOffset now) => CurrentAt(now) is not null
        ? null
        : UnusableReason
            ?? (Current is not null && CurrentWindow.Contains(now) && IsStale(now)
                ? $"Key Vault last confirmed it at {ConfirmedAt:u}, longer ago than {KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.MaxCachedKeyAge)} ({MaxCachedAge})"
                : CurrentWindow.Describe(now));

    /// <summary>A key this snapshot already holds (versions are immutable, so it never needs fetching again).</summary>
    public SigningKey? Cached(string version)
    {
        if (Current is not null && string.Equals(Current.KeyId, version, StringComparison.Ordinal))
        {
            return Current;
        }

        foreach (var staged in Staged)
        {
            if (string.Equals(staged.Key.KeyId, version, StringComparison.Ordinal))
            {
                return staged.Key;
            }
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
        foreach (var key in Verification(now, maxAge))
        {
            if (string.Equals(key.KeyId, keyId, StringComparison.Ordinal))
            {
                return key;
            }
        }

        return null;
    }

    /// <summary>Every key that verifies at <paramref name="now"/>: current, staged, then retiring newest first.</summary>
    public IReadOnlyList<SigningKey> Verification(DateTimeOffset now, TimeSpan maxAge)
    {
        var keys = new List<SigningKey>(Previous.Count + Staged.Count + 1);
        if (Current is not null && CurrentWindow.Contains(now))
        {
            keys.Add(Current);
        }

        foreach (var staged in Staged)
        {
            if (staged.Window.ExpiresOn is null || now < staged.Window.ExpiresOn)
            {
                keys.Add(staged.Key);
            }
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

    /// <summary>Ids, states and windows of the keys that sign or verify at <paramref name="now"/>.</summary>
    public IReadOnlyList<KeyDescription> Describe(DateTimeOffset now, TimeSpan maxAge)
    {
        var keys = new List<KeyDescription>(Previous.Count + Staged.Count + 1);
        if (CurrentAt(now) is { } current)
        {
            keys.Add(new KeyDescription(current.KeyId, KeyState.Current, CurrentWindow.NotBefore, CurrentWindow.ExpiresOn, current.CreatedOn) { PublicKey = current.Ed25519 });
        }

        foreach (var staged in Staged)
        {
            if (staged.Window.ExpiresOn is null || now < staged.Window.ExpiresOn)
            {
                keys.Add(new KeyDescription(staged.Key.KeyId, KeyState.Staged, staged.Window.NotBefore, staged.Window.ExpiresOn, staged.Key.CreatedOn) { PublicKey = staged.Key.Ed25519 });
            }
        }

        foreach (var previous in Previous)
        {
            if (previous.IsAccepted(now, maxAge))
            {
                keys.Add(new KeyDescription(previous.Key.KeyId, KeyState.Retiring, previous.Window.NotBefore, previous.Window.ExpiresOn, previous.Key.CreatedOn) { PublicKey = previous.Key.Ed25519, ReplacedOn = previous.ReplacedOn });
            }
        }

        return keys;
    }

    private bool IsStale(DateTimeOffset now) => ConfirmedAt is { } confirmed && MaxCachedAge is { } maxAge && now - confirmed > maxAge;

    /// <summary>An earlier version, when a newer one replaced it, and its own validity window.</summary>
    internal sealed record PreviousKey(SigningKey Key, DateTimeOffset ReplacedOn, KeyWindow Window)
    {
        public bool IsAccepted(DateTimeOffset now, TimeSpan maxAge) => now - ReplacedOn <= maxAge && Window.Contains(now);
    }

    /// <summary>A staged version and its window (its <c>nbf</c> is ahead).</summary>
    internal sealed record StagedKey(SigningKey Key, KeyWindow Window);

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
