using Newtonsoft.Json;

namespace WidgetSigning.Signing;

/// <summary>
/// The JSON members every signed answer shares, HTTP and queue alike: <c>signatures</c> (each key's labelled hex
/// signature) and <c>webhook</c> (the Standard Webhooks id, timestamp and signature header), written in one place so
/// the two answers cannot drift.
/// </summary>
internal static class SignatureJson
{
    /// <summary>
    /// Writes <c>"signatures":[…]</c> when there is a plain form (<paramref name="signatures"/> not null) and
    /// <c>"webhook":{…}</c> when there is a Standard Webhooks one, into the open object: only the forms made.
    /// </summary>
    public static void WriteSignatures(JsonWriter json, IReadOnlyList<KeySignature>? signatures, WebhookSignature? webhook, IReadOnlyList<Ed25519KeySignature>? ed25519 = null)
    {
        if (signatures is not null)
        {
            WriteLabelled(json, signatures);
        }

        WriteEd25519(json, ed25519);

        if (webhook is not null)
        {
            WriteWebhook(json, webhook, withSignature: true);
        }
    }

    /// <summary>
    /// Several receivers: the shared <c>webhook</c> id and timestamp, then <c>receivers</c>, each with its own key id, plain
    /// signature(s) and <c>webhook-signature</c> value, so every signature is named for the receiver it is for.
    /// </summary>
    public static void WriteReceivers(JsonWriter json, IReadOnlyList<ReceiverSignature> receivers, bool plain, WebhookSignature? webhook)
    {
        if (webhook is not null)
        {
            // Shared by every receiver; each one's signature header is in its own entry.
            WriteWebhook(json, webhook, withSignature: false);
        }

        json.WritePropertyName("receivers");
        json.WriteStartArray();
        foreach (var receiver in receivers)
        {
            json.WriteStartObject();
            json.WritePropertyName("receiver");
            json.WriteValue(receiver.Receiver.Value);
            json.WritePropertyName("keyId");
            json.WriteValue(receiver.KeyId);
            if (plain && receiver.Signatures.Count > 0)
            {
                json.WritePropertyName("signature");
                json.WriteValue(receiver.Signatures[0].Signature.ToHex());
                WriteLabelled(json, receiver.Signatures);
            }

            if (receiver.HasEd25519)
            {
                json.WritePropertyName("algorithm");
                json.WriteValue(receiver.Algorithm);
            }

            WriteEd25519(json, plain ? receiver.Ed25519Signatures : null);

            if (receiver.WebhookHeader is { } header)
            {
                json.WritePropertyName("webhookSignature");
                json.WriteValue(header);
            }

            json.WriteEndObject();
        }

        json.WriteEndArray();
    }

    // "ed25519Signature" (the current key's, base64) and "ed25519Signatures" (each labelled); nothing for an HMAC-only receiver.
    private static void WriteEd25519(JsonWriter json, IReadOnlyList<Ed25519KeySignature>? signatures)
    {
        if (signatures is null || signatures.Count == 0)
        {
            return;
        }

        json.WritePropertyName("ed25519Signature");
        json.WriteValue(signatures[0].ToBase64());
        WriteEntries(json, "ed25519Signatures", signatures.Select(s => (s.KeyId, s.StateName, s.ToBase64())));
    }

    private static void WriteWebhook(JsonWriter json, WebhookSignature webhook, bool withSignature)
    {
        json.WritePropertyName("webhook");
        json.WriteStartObject();
        json.WritePropertyName("id");
        json.WriteValue(webhook.Id);
        json.WritePropertyName("timestamp");
        json.WriteValue(webhook.Timestamp);
        if (withSignature)
        {
            json.WritePropertyName("signature");
            json.WriteValue(webhook.Signature);
        }

        json.WriteEndObject();
    }

    private static void WriteLabelled(JsonWriter json, IReadOnlyList<KeySignature> signatures) =>
        WriteEntries(json, "signatures", signatures.Select(s => (s.KeyId, s.StateName, s.Signature.ToHex())));

    // Each key's signature as {"keyId","state","signature"}, in order.
    private static void WriteEntries(JsonWriter json, string name, IEnumerable<(string KeyId, string State, string Signature)> entries)
    {
        json.WritePropertyName(name);
        json.WriteStartArray();
        foreach (var (keyId, state, signature) in entries)
        {
            json.WriteStartObject();
            json.WritePropertyName("keyId");
            json.WriteValue(keyId);
            json.WritePropertyName("state");
            json.WriteValue(state);
            json.WritePropertyName("signature");
            json.WriteValue(signature);
            json.WriteEndObject();
        }

        json.WriteEndArray();
    }
}
