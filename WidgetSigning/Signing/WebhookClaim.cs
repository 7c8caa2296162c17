using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>What a receiver claims with the Standard Webhooks headers: id, timestamp and the <c>v1</c> and <c>v1a</c> signatures to check.</summary>
/// <param name="Id">The <c>webhook-id</c>.</param>
/// <param name="Timestamp">The <c>webhook-timestamp</c>, Unix seconds.</param>
/// <param name="Signatures">The <c>v1</c> entries of <c>webhook-signature</c>; any one matching is enough.</param>
internal sealed record WebhookClaim(string Id, long Timestamp, IReadOnlyList<Signature> Signatures)
{
    /// <summary>The <c>v1a</c> entries (64-byte Ed25519 signatures); any one verifying under one of the receiver's public keys is enough.</summary>
    public IReadOnlyList<byte[]> Ed25519Signatures { get; init; } = [];
}
