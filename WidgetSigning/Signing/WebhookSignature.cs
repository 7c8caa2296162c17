namespace WidgetSigning.Signing;

/// <summary>
/// The Standard Webhooks 1.0 headers of one signed answer: <c>webhook-id</c>, <c>webhook-timestamp</c> (Unix seconds)
/// and <c>webhook-signature</c> (one <c>v1,&lt;base64&gt;</c> per current and staged key, space-separated), over
/// <c>id.timestamp.</c> followed by the canonical bytes.
/// </summary>
/// <param name="Id">The <c>webhook-id</c>.</param>
/// <param name="Timestamp">The <c>webhook-timestamp</c>, Unix seconds.</param>
/// <param name="Signature">The <c>webhook-signature</c> header value.</param>
internal sealed record WebhookSignature(string Id, long Timestamp, string Signature);
