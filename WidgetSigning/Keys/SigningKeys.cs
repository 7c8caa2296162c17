namespace WidgetSigning.Keys;

/// <summary>
/// The keys a new signature is made with: the current key (the <c>X-Signature</c> signer), every staged key (HMAC only:
/// a staged Ed25519 key is published, not used), and the retiring keys whose Ed25519 part still signs for a while after
/// a rotation (<see cref="Overlap"/>).
/// </summary>
/// <param name="Current">The key <c>X-Signature</c> and <c>signature</c> are made with.</param>
/// <param name="Staged">Keys whose <c>nbf</c> is still ahead; each one's HMAC part signs too, labelled with its id, so receivers can switch early.</param>
internal sealed record SigningKeys(SigningKey Current, IReadOnlyList<SigningKey> Staged)
{
    /// <summary>
    /// Retiring keys whose Ed25519 part signs beside the current key's until two <c>KeyVault:RefreshInterval</c>s after
    /// it was replaced: a receiver whose key set predates the rotation still finds a <c>v1a</c> entry it can check.
    /// </summary>
    public IReadOnlyList<SigningKey> Overlap { get; init; } = [];
}
