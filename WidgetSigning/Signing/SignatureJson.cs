using Newtonsoft.Json;

namespace WidgetSigning.Signing;

/// <summary>
/// The JSON members every signed answer shares, HTTP and queue alike: <c>signatures</c> (each key's labelled hex
/// signature) and <c>webhook</c> (the Standard Webhooks id, timestamp and signature header), written in one place so
/// the two answers cannot drift.
/// </summary>
internal static class SignatureJson
{
    /// <summary>Writes <c>"signatures":[…]</c> and, when there is one, <c>"webhook":{…}</c> into the open object.</summary>
    public static void WriteSignatures(JsonWriter json, IReadOnlyList<KeySignature> signatures, WebhookSignature? webhook)
    {
        json.WritePropertyName("signatures");
        json.WriteStartArray();
        foreach (var labelled in signatures)
        {
            json.WriteStartObject();
            json.WritePropertyName("keyId");
            json.WriteValue(labelled.KeyId);
            json.WritePropertyName("state");
            json.WriteValue(labelled.StateName);
            json.WritePropertyName("signature");
            json.WriteValue(labelled.Signature.ToHex());
            json.WriteEndObject();
        }

        json.WriteEndArray();
        if (webhook is null)
        {
            return;
        }

        json.WritePropertyName("webhook");
        json.WriteStartObject();
        json.WritePropertyName("id");
        json.WriteValue(webhook.Id);
        json.WritePropertyName("timestamp");
        json.WriteValue(webhook.Timestamp);
        json.WritePropertyName("signature");
        json.WriteValue(webhook.Signature);
        json.WriteEndObject();
    }
}
