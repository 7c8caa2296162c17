using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>One receiver's signatures of an envelope, made with that receiver's keys only.</summary>
/// <param name="Receiver">Who the signatures are for.</param>
/// <param name="KeyId">The id of the receiver's current key.</param>
/// <param name="Signatures">The plain HMAC form (<c>X-Signature</c>): the current key's, then each staged key's; empty without that form or when the current key has no HMAC part.</param>
/// <param name="WebhookHeader">The Standard Webhooks <c>webhook-signature</c> value (a <c>v1,</c> entry per HMAC key, then a <c>v1a,</c> entry per Ed25519 key); null without that form.</param>
internal sealed record ReceiverSignature(ReceiverId Receiver, string KeyId, IReadOnlyList<KeySignature> Signatures, string? WebhookHeader)
{
    /// <summary>The plain Ed25519 form (<c>X-Signature-Ed25519</c>): the current key's, then any retiring key's still signing; empty without that form or without Ed25519 keys.</summary>
    public IReadOnlyList<Ed25519KeySignature> Ed25519Signatures { get; init; } = [];

    /// <summary>The schemes this receiver's answer carries: <c>HMACSHA256</c>, <c>Ed25519</c>, or both, space-separated.</summary>
    public string Algorithm => SignatureAlgorithms.Of(HasHmac, HasEd25519);

    /// <summary>Whether this receiver's keys sign with HMAC-SHA256.</summary>
    public bool HasHmac { get; init; } = true;

    /// <summary>Whether this receiver's keys sign with Ed25519.</summary>
    public bool HasEd25519 { get; init; }
}
