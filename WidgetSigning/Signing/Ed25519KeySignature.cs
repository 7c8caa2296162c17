using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>One key's Ed25519 signature (64 bytes), labelled with the key's id and state.</summary>
/// <param name="KeyId">The key id (<c>local</c> or the Key Vault secret version), the <c>kid</c> of its public key in the receiver's key set.</param>
/// <param name="State">Current, or retiring (still signing for a while after a rotation).</param>
/// <param name="Value">The signature's bytes.</param>
internal sealed record Ed25519KeySignature(string KeyId, KeyState State, byte[] Value)
{
    /// <summary>The state as written in answers.</summary>
    public string StateName => StandardWebhooks.StateName(State);

    /// <summary>Base64 (88 characters), as <c>X-Signature-Ed25519</c> and <c>v1a,</c> carry it.</summary>
    public string ToBase64() => Convert.ToBase64String(Value);
}
