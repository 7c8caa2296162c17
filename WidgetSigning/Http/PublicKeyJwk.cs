using Microsoft.AspNetCore.WebUtilities;
using Newtonsoft.Json;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace WidgetSigning.Http;

/// <summary>
/// One Ed25519 public key as a JWK (RFC 8037 §2: <c>kty</c> OKP, <c>crv</c> Ed25519, <c>x</c> base64url), with its id
/// (<c>kid</c>, the key version every signature is labelled with), its <c>whpk_</c> form, its state, and when it signs:
/// <c>nbf</c> (from) and <c>signsUntil</c> (once known), both Unix seconds.
/// </summary>
internal static class PublicKeyJwk
{
    public static void Write(JsonWriter json, KeyDescription key, Ed25519Key publicKey)
    {
        json.WriteStartObject();
        json.WritePropertyName("kty");
        json.WriteValue("OKP");
        json.WritePropertyName("crv");
        json.WriteValue("Ed25519");
        json.WritePropertyName("x");
        json.WriteValue(WebEncoders.Base64UrlEncode(publicKey.PublicKey.ToArray()));
        json.WritePropertyName("kid");
        json.WriteValue(key.KeyId);
        json.WritePropertyName("alg");
        json.WriteValue("EdDSA");
        json.WritePropertyName("use");
        json.WriteValue("sig");
        json.WritePropertyName("whpk");
        json.WriteValue(publicKey.PublicKeyText);
        json.WritePropertyName("state");
        json.WriteValue(StandardWebhooks.StateName(key.State));
        if ((key.NotBefore ?? key.CreatedOn) is { } from)
        {
            json.WritePropertyName("nbf");
            json.WriteValue(from.ToUnixTimeSeconds());
        }

        if ((key.ReplacedOn ?? key.ExpiresOn) is { } until)
        {
            json.WritePropertyName("signsUntil");
            json.WriteValue(until.ToUnixTimeSeconds());
        }

        json.WriteEndObject();
    }
}
