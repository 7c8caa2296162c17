namespace WidgetSigning.Keys;

/// <summary>What <c>GET /api/keys</c> tells about one key: never its material.</summary>
/// <param name="KeyId">The key id (<c>local</c> or the Key Vault secret version).</param>
/// <param name="State">Current, staged or retiring.</param>
/// <param name="NotBefore">Key Vault's <c>nbf</c>, if set.</param>
/// <param name="ExpiresOn">Key Vault's <c>exp</c>, if set.</param>
/// <param name="CreatedOn">When the version was created, where known.</param>
internal sealed record KeyDescription(string KeyId, KeyState State, DateTimeOffset? NotBefore, DateTimeOffset? ExpiresOn, DateTimeOffset? CreatedOn)
{
    /// <summary>The version's Ed25519 key, for its public half (the receiver's key set); null for an HMAC-only version.</summary>
    public Ed25519Key? PublicKey { get; init; }

    /// <summary>When a retiring version was replaced (its last signature, but for the Ed25519 overlap); null otherwise.</summary>
    public DateTimeOffset? ReplacedOn { get; init; }
}
