using System.Globalization;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>
/// The 200 response of <c>/api/sign</c>: the signature as JSON, or (with <c>?output=canonical</c>) the exact
/// canonical bytes streamed from the pool. Either way the signature is also in the headers. Only the forms made appear:
/// without the plain form no <c>X-Signature</c>, <c>X-Signatures</c>, <c>signature</c> or <c>signatures</c>; without the
/// Standard Webhooks form no <c>webhook-*</c> header and no <c>webhook</c>. The result owns the
/// <see cref="SignedEnvelope"/> and disposes it once the response is written.
/// </summary>
internal sealed class SignatureResult : IActionResult
{
    private readonly SignedEnvelope _signed;
    private readonly HttpOptions? _rate;

    /// <summary>Creates the result; with <paramref name="rate"/>, writing the answer is bounded by its minimum data rate.</summary>
    public SignatureResult(SignedEnvelope signed, bool canonicalBody, HttpOptions? rate = null)
    {
        _signed = signed;
        CanonicalBody = canonicalBody;
        _rate = rate;
    }

    /// <summary>Whether the body is the canonical bytes rather than the JSON summary.</summary>
    public bool CanonicalBody { get; }

    /// <inheritdoc />
    public async Task ExecuteResultAsync(ActionContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var response = context.HttpContext.Response;
        try
        {
            var plain = _signed.Forms.HasPlain();
            var single = _signed.Receivers.Count == 1;
            var webhook = _signed.Webhook;
            var headers = response.Headers;
            headers[SignatureHeaders.Algorithm] = _signed.Algorithm;
            headers[SignatureHeaders.WidgetCount] = _signed.WidgetCount.ToString(CultureInfo.InvariantCulture);
            headers[SignatureHeaders.CanonicalLength] = _signed.CanonicalLength.ToString(CultureInfo.InvariantCulture);
            if (webhook is not null)
            {
                headers[StandardWebhooks.IdHeader] = webhook.Id;
                headers[StandardWebhooks.TimestampHeader] = webhook.Timestamp.ToString(CultureInfo.InvariantCulture);
            }

            if (single)
            {
                // One receiver: the standard headers, exactly what its library and openssl check.
                headers[SignatureHeaders.Receiver] = _signed.Receiver.Value;
                headers[SignatureHeaders.KeyId] = _signed.KeyId;
                if (_signed.HasHmacSignature)
                {
                    headers[SignatureHeaders.Signature] = _signed.Signature.ToHex();
                    headers[SignatureHeaders.Signatures] = Labelled(_signed.Signatures);
                }

                if (plain && _signed.Ed25519Signatures.Count > 0)
                {
                    headers[SignatureHeaders.Ed25519Signature] = _signed.Ed25519Signatures[0].ToBase64();
                    headers[SignatureHeaders.Ed25519Signatures] = Labelled(_signed.Ed25519Signatures);
                }

                if (webhook is not null)
                {
                    headers[StandardWebhooks.SignatureHeader] = webhook.Signature;
                }
            }
            else
            {
                // Several: no standard signature header at all, so no receiver can mistake another's for its own.
                headers[SignatureHeaders.Receivers] = string.Join(", ", _signed.Receivers.Select(r => r.Receiver.Value));
                foreach (var receiver in _signed.Receivers)
                {
                    if (plain && receiver.Signatures.Count > 0)
                    {
                        headers[SignatureHeaders.SignaturesForPrefix + receiver.Receiver.Value] = Labelled(receiver.Signatures);
                    }

                    if (plain && receiver.Ed25519Signatures.Count > 0)
                    {
                        headers[SignatureHeaders.Ed25519SignaturesForPrefix + receiver.Receiver.Value] = Labelled(receiver.Ed25519Signatures);
                    }

                    if (receiver.WebhookHeader is { } header)
                    {
                        headers[SignatureHeaders.WebhookSignatureForPrefix + receiver.Receiver.Value] = header;
                    }
                }
            }

            headers.CacheControl = "no-store";

            if (CanonicalBody)
            {
                response.StatusCode = StatusCodes.Status200OK;
                response.ContentType = "application/json; charset=utf-8";
                response.ContentLength = _signed.CanonicalLength;
                await CopyCanonicalAsync(context.HttpContext).ConfigureAwait(false);
                return;
            }

            await SmallJson.WriteAsync(response, StatusCodes.Status200OK, "application/json; charset=utf-8", json =>
            {
                json.WriteStartObject();
                json.WritePropertyName("algorithm");
                json.WriteValue(_signed.Algorithm);
                if (single)
                {
                    json.WritePropertyName("receiver");
                    json.WriteValue(_signed.Receiver.Value);
                    json.WritePropertyName("keyId");
                    json.WriteValue(_signed.KeyId);
                    if (_signed.HasHmacSignature)
                    {
                        json.WritePropertyName("signature");
                        json.WriteValue(_signed.Signature.ToHex());
                    }
                }

                json.WritePropertyName("widgetCount");
                json.WriteValue(_signed.WidgetCount);
                json.WritePropertyName("canonicalLength");
                json.WriteValue(_signed.CanonicalLength);
                if (single)
                {
                    SignatureJson.WriteSignatures(json, _signed.HasHmacSignature ? _signed.Signatures : null, webhook, plain ? _signed.Ed25519Signatures : null);
                }
                else
                {
                    SignatureJson.WriteReceivers(json, _signed.Receivers, plain, webhook);
                }

                json.WriteEndObject();
            }, context.HttpContext.RequestAborted).ConfigureAwait(false);
        }
        catch (Exception ex) when (ResponseWrite.IsClientGone(ex, context.HttpContext.RequestAborted))
        {
            // The client left while the answer was written: the signature was made, but no one is there to receive it.
        }
        finally
        {
            await _signed.DisposeAsync().ConfigureAwait(false);
        }
    }

    private static string Labelled(IReadOnlyList<KeySignature> signatures) =>
        string.Join(", ", signatures.Select(s => $"{s.StateName}:{s.KeyId}:{s.Signature.ToHex()}"));

    private static string Labelled(IReadOnlyList<Ed25519KeySignature> signatures) =>
        string.Join(", ", signatures.Select(s => $"{s.StateName}:{s.KeyId}:{s.ToBase64()}"));

    // A client that reads the canonical bytes more slowly than the minimum rate would hold the pooled blocks (and the
    // budget) as long as it liked: past the time allowed, the connection is closed and everything goes back.
    private async Task CopyCanonicalAsync(HttpContext http)
    {
        if (_rate is null)
        {
            await _signed.CopyCanonicalToAsync(http.Response.Body, http.RequestAborted).ConfigureAwait(false);
            return;
        }

        using var slow = CancellationTokenSource.CreateLinkedTokenSource(http.RequestAborted);
        slow.CancelAfter(_rate.TimeAllowedFor(_signed.CanonicalLength));
        try
        {
            await _signed.CopyCanonicalToAsync(http.Response.Body, slow.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (slow.IsCancellationRequested && !http.RequestAborted.IsCancellationRequested)
        {
            // The status line is gone already: closing the connection is the only answer left.
            http.Abort();
        }
    }
}
