namespace WidgetSigning.Keys;

/// <summary>
/// Which of a receiver's secret versions does what at a moment, from their listed state alone (no key material, no
/// vault): the current version signs, staged versions sign beside it, retiring versions only verify, and with no
/// current version nothing signs (<see cref="Refusal"/> says why). Whether the current version's read is refused is
/// the caller's to find out: that read is the revocation check.
/// </summary>
internal sealed class KeyVersionSelection
{
    private KeyVersionSelection(KeyVersion? current, IReadOnlyList<KeyVersion> staged, IReadOnlyList<RetiringVersion> retiring, string? refusal)
    {
        Current = current;
        Staged = staged;
        Retiring = retiring;
        Refusal = refusal;
    }

    /// <summary>
    /// The newest version whose <c>nbf</c> has passed, enabled or not: a disabled or expired current version fails closed
    /// rather than falling back to an older one. Null when no version is active.
    /// </summary>
    public KeyVersion? Current { get; }

    /// <summary>Enabled, unexpired versions whose <c>nbf</c> is still ahead, newest first, at most the limit asked for.</summary>
    public IReadOnlyList<KeyVersion> Staged { get; }

    /// <summary>
    /// Earlier enabled, active, unexpired versions that still verify, newest first: at most the number accepted, and each
    /// only while its successor took over less than the maximum age ago.
    /// </summary>
    public IReadOnlyList<RetiringVersion> Retiring { get; }

    /// <summary>Why nothing signs when there is no <see cref="Current"/> version, or when it is disabled; null otherwise.</summary>
    public string? Refusal { get; }

    /// <summary>Selects from <paramref name="versions"/> at <paramref name="now"/>.</summary>
    /// <param name="versions">Every listed version of the secret, in any order; versions without a creation time are ignored.</param>
    /// <param name="now">The moment the selection is for.</param>
    /// <param name="maxStaged">The most staged versions signed with at once (each is one more HMAC per request).</param>
    /// <param name="acceptedPreviousVersions">The most earlier versions that verify (<c>KeyVault:AcceptedPreviousVersions</c>).</param>
    /// <param name="maxVersionAge">How long a replaced version verifies after its successor took over (<c>KeyVault:MaxVersionAge</c>).</param>
    public static KeyVersionSelection Select(IEnumerable<KeyVersion> versions, DateTimeOffset now, int maxStaged, int acceptedPreviousVersions, TimeSpan maxVersionAge)
    {
        ArgumentNullException.ThrowIfNull(versions);
        var listed = versions.Where(v => v.CreatedOn is not null).ToList();
        var active = listed.Where(v => v.NotBefore is null || v.NotBefore <= now).ToList();
        KeyVersion? current = active.Count == 0 ? null : active.MaxBy(v => v.CreatedOn!.Value);
        var staged = listed
            .Where(v => v.Enabled == true && v.NotBefore > now && (v.ExpiresOn is null || v.ExpiresOn > now))
            .OrderByDescending(v => v.CreatedOn!.Value)
            .Take(maxStaged)
            .ToList();

        var refusal = current switch
        {
            null when staged.Count > 0 => $"no version is active yet (the newest is staged until {staged[0].NotBefore:u})",
            null => "the secret has no version",
            { Enabled: not true } => "it is disabled",
            _ => null,
        };

        return new(current, staged, RetiringBehind(listed, current, now, acceptedPreviousVersions, maxVersionAge), refusal);
    }

    // Newest first; a version is replaced when its successor became active (its nbf, if staged, else its creation).
    private static List<RetiringVersion> RetiringBehind(List<KeyVersion> listed, KeyVersion? current, DateTimeOffset now, int accepted, TimeSpan maxAge)
    {
        var candidates = listed
            .Where(v => !string.Equals(v.Version, current?.Version, StringComparison.Ordinal) &&
                v.Enabled == true &&
                v.CreatedOn <= (current?.CreatedOn ?? now) &&
                (v.ExpiresOn is null || v.ExpiresOn > now) &&
                (v.NotBefore is null || v.NotBefore <= now))
            .OrderByDescending(v => v.CreatedOn!.Value)
            .ToList();

        var retiring = new List<RetiringVersion>();
        var replacedOn = current?.ActiveFrom ?? now;
        for (var i = 0; i < candidates.Count && i < accepted && now - replacedOn <= maxAge; i++)
        {
            retiring.Add(new RetiringVersion(candidates[i], replacedOn));
            replacedOn = candidates[i].ActiveFrom;
        }

        return retiring;
    }
}
