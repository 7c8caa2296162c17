using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>One key's HMAC-SHA256 over the canonical bytes, labelled with the key's id and state.</summary>
/// <param name="KeyId">The key id (<c>local</c> or the Key Vault secret version).</param>
/// <param name="State">Current (the <c>X-Signature</c> signer) or staged.</param>
/// <param name="Signature">The HMAC-SHA256 of the canonical bytes.</param>
internal sealed record KeySignature(string KeyId, KeyState State, Signature Signature)
{
    /// <summary>The state as written in answers: <c>current</c>, <c>staged</c> or <c>retiring</c>.</summary>
    public string StateName => StandardWebhooks.StateName(State);
}
