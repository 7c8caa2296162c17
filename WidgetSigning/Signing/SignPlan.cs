using WidgetSigning.Hashing;
using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// The forms to make and, with the Standard Webhooks form, the webhook id as given (known answers, a generated
/// <c>msg_</c> id) or a seed to derive it from. Without that form there is no id: none is generated.
/// </summary>
internal readonly record struct SignPlan(SignatureForms Forms, string? Literal, WebhookIdSeed? Seed)
{
    /// <summary>The plan <paramref name="request"/> asks for: its literal id, its seed, or a new <c>msg_</c> id.</summary>
    /// <exception cref="ArgumentException">Both an id and a seed, or an id that breaks <see cref="StandardWebhooks.IsValidId"/>.</exception>
    public static SignPlan Of(SignRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var forms = request.Forms;
        if (!forms.HasWebhook())
        {
            return new(forms, null, null);
        }

        if (request.WebhookId is { } literal)
        {
            if (request.IdSeed is not null)
            {
                throw new ArgumentException("A sign request gives either a webhook id or a seed to derive it from, not both.", nameof(request));
            }

            return StandardWebhooks.IsValidId(literal)
                ? new(forms, literal, null)
                : throw new ArgumentException($"The webhook id breaks the Standard Webhooks id rule.", nameof(request));
        }

        return request.IdSeed is { } seed ? new(forms, null, seed) : new(forms, StandardWebhooks.NewId(), null);
    }

    /// <summary>
    /// Only the chains the forms need: the plain form one per key; the Standard Webhooks form one per key, fed its
    /// <c>id.timestamp.</c> prefix now when the id is known, or after the pass (with a SHA-256 in the pass for the id)
    /// when the id is derived from the bytes.
    /// </summary>
    public KeyMacs CreateMacs(ReceiverKeys[] keys, long timestamp)
    {
        if (!Forms.HasWebhook())
        {
            return KeyMacs.PlainOnly(keys);
        }

        var plain = Forms.HasPlain();
        if (Seed is { } seed)
        {
            return KeyMacs.Deferred(keys, plain, seed.StartDigest());
        }

        Span<byte> prefix = stackalloc byte[StandardWebhooks.MaxPrefixBytes];
        return KeyMacs.Prefixed(keys, plain, prefix[..StandardWebhooks.WritePrefix(prefix, Literal!, timestamp)]);
    }
}
