namespace WidgetSigning.Http;

/// <summary>The response headers that carry a signature, so it travels with any body.</summary>
internal static class SignatureHeaders
{
    /// <summary>The 64 lowercase hex digits of the signature.</summary>
    public const string Signature = "X-Signature";

    /// <summary>Always <c>HMACSHA256</c>.</summary>
    public const string Algorithm = "X-Signature-Algorithm";

    /// <summary>The id of the key that signed (<c>local</c> or the Key Vault secret version).</summary>
    public const string KeyId = "X-Signature-Key-Id";

    /// <summary>
    /// Every key's signature, labelled: <c>current:&lt;keyId&gt;:&lt;hex&gt;</c>, then <c>staged:&lt;keyId&gt;:&lt;hex&gt;</c>
    /// for each staged key, separated by <c>", "</c>.
    /// </summary>
    public const string Signatures = "X-Signatures";

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
