using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>One receiver's signatures of an envelope, made with that receiver's keys only.</summary>
/// <param name="Receiver">Who the signatures are for.</param>
/// <param name="KeyId">The id of the receiver's current key.</param>
/// <param name="Signatures">The plain form (<c>X-Signature</c>): the current key's, then each staged key's; empty without that form.</param>
/// <param name="WebhookHeader">The Standard Webhooks <c>webhook-signature</c> value (a <c>v1,</c> entry per key); null without that form.</param>
internal sealed record ReceiverSignature(ReceiverId Receiver, string KeyId, IReadOnlyList<KeySignature> Signatures, string? WebhookHeader);
