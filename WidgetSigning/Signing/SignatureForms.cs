namespace WidgetSigning.Signing;

/// <summary>
/// Which signature forms an answer carries, each one HMAC-SHA256 chain over the canonical bytes per key: the plain
/// signature (<c>X-Signature</c>, <c>X-Signatures</c>; <c>signature</c> and <c>signatures</c> in JSON) and the Standard
/// Webhooks signature (<c>webhook-id</c>, <c>webhook-timestamp</c>, <c>webhook-signature</c>; <c>webhook</c> in JSON).
/// Settings <c>Http:SignatureForms</c> and <c>Queues:SignatureForms</c>; per request <c>?forms=</c>.
/// </summary>
/// <remarks>
/// <see cref="Both"/> is the zero value on purpose: what every answer carried before the choice existed, so an unset
/// setting or a default value never drops a form a receiver may be checking.
/// </remarks>
public enum SignatureForms
{
    /// <summary>Both forms: two MAC chains per key (the default).</summary>
    Both = 0,

    /// <summary>Only the plain signature (<c>X-Signature</c>): one MAC chain per key, no <c>webhook-*</c>.</summary>
    Plain = 1,

    /// <summary>Only the Standard Webhooks signature (<c>webhook-*</c>): one MAC chain per key, no <c>X-Signature</c>.</summary>
    Webhook = 2,
}
