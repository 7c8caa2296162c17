namespace WidgetSigning.Signing;

/// <summary>The names answers give the signature schemes (<c>X-Signature-Algorithm</c>, <c>algorithm</c> in JSON).</summary>
internal static class SignatureAlgorithms
{
    /// <summary>HMAC-SHA256 (<c>X-Signature</c>, <c>v1,</c>).</summary>
    public const string Hmac = "HMACSHA256";

    /// <summary>Ed25519 (<c>X-Signature-Ed25519</c>, <c>v1a,</c>).</summary>
    public const string Ed25519 = "Ed25519";

    /// <summary>Both, as one value.</summary>
    public const string Both = Hmac + " " + Ed25519;

    /// <summary>The name for an answer with the given schemes; an answer with neither is not made.</summary>
    public static string Of(bool hmac, bool ed25519) => (hmac, ed25519) switch
    {
        (true, true) => Both,
        (false, true) => Ed25519,
        _ => Hmac,
    };
}
