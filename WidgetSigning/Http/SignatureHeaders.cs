namespace WidgetSigning.Http;

/// <summary>The response headers that carry a signature, so it travels with any body.</summary>
internal static class SignatureHeaders
{
    /// <summary>The 64 lowercase hex digits of the signature.</summary>
    public const string Signature = "X-Signature";

    /// <summary>The schemes the answer carries: <c>HMACSHA256</c>, <c>Ed25519</c>, or both, space-separated.</summary>
    public const string Algorithm = "X-Signature-Algorithm";

    /// <summary>The id of the key that signed (<c>local</c> or the Key Vault secret version).</summary>
    public const string KeyId = "X-Signature-Key-Id";

    /// <summary>
    /// Every key's signature, labelled: <c>current:&lt;keyId&gt;:&lt;hex&gt;</c>, then <c>staged:&lt;keyId&gt;:&lt;hex&gt;</c>
    /// for each staged key, separated by <c>", "</c>.
    /// </summary>
    public const string Signatures = "X-Signatures";

    /// <summary>
    /// The base64 of the current key's Ed25519 signature over the canonical bytes alone, for a receiver with an Ed25519
    /// key. Its own name, so no HMAC checker reads it as an HMAC.
    /// </summary>
    public const string Ed25519Signature = "X-Signature-Ed25519";

    /// <summary>
    /// Every Ed25519 signature, labelled: <c>current:&lt;keyId&gt;:&lt;base64&gt;</c>, then
    /// <c>retiring:&lt;keyId&gt;:&lt;base64&gt;</c> for a key still signing after a rotation, separated by <c>", "</c>.
    /// </summary>
    public const string Ed25519Signatures = "X-Signatures-Ed25519";

    /// <summary>With several receivers: the prefix of each receiver's labelled Ed25519 signatures, <c>X-Signatures-Ed25519-For-&lt;id&gt;</c>.</summary>
    public const string Ed25519SignaturesForPrefix = "X-Signatures-Ed25519-For-";

    /// <summary>The number of widgets signed.</summary>
    public const string WidgetCount = "X-Widget-Count";

    /// <summary>The length of the canonical bytes.</summary>
    public const string CanonicalLength = "X-Canonical-Length";

    /// <summary>The receiver a single-receiver signature is for.</summary>
    public const string Receiver = "X-Signature-Receiver";

    /// <summary>With several receivers: the receivers, in order, comma-separated.</summary>
    public const string Receivers = "X-Signature-Receivers";

    /// <summary>
    /// With several receivers: the prefix of each receiver's own headers, <c>X-Signatures-For-&lt;id&gt;</c> and
    /// <c>Webhook-Signature-For-&lt;id&gt;</c>. No receiver's library reads a header of that name, so none can take another's
    /// signature for its own; the caller forwards to each receiver its own value under the standard name.
    /// </summary>
    public const string SignaturesForPrefix = "X-Signatures-For-";

    /// <summary>With several receivers: the prefix of each receiver's <c>webhook-signature</c> value.</summary>
    public const string WebhookSignatureForPrefix = "Webhook-Signature-For-";
}
