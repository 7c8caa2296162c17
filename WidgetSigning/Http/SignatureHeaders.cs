namespace WidgetSigning.Http;

/// <summary>The response headers that carry a signature, so it travels with any body.</summary>
public static class SignatureHeaders
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
}
