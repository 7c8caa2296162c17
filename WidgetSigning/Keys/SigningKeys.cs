namespace WidgetSigning.Keys;

/// <summary>The keys a new signature is made with: the current key (the <c>X-Signature</c> signer) and every staged key.</summary>
/// <param name="Current">The key <c>X-Signature</c> and <c>signature</c> are made with.</param>
/// <param name="Staged">Keys whose <c>nbf</c> is still ahead; each signs too, labelled with its id, so receivers can switch early.</param>
internal sealed record SigningKeys(SigningKey Current, IReadOnlyList<SigningKey> Staged);
