using System.Globalization;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>
/// The Standard Webhooks request headers: <c>Idempotency-Key</c> on <c>/api/sign</c> (with the content, derives <c>webhook-id</c>), and
/// <c>webhook-id</c>, <c>webhook-timestamp</c>, <c>webhook-signature</c> on <c>/api/verify</c>. Each is bounded and
/// checked before the body is read; a bad one is a 400 naming the header.
/// </summary>
internal static class WebhookRequestHeaders
{
    /// <summary>The request header whose value becomes <c>webhook-id</c>.</summary>
    public const string IdempotencyKey = "Idempotency-Key";

    /// <summary>
    /// The request's <c>Idempotency-Key</c> as the seed <c>webhook-id</c> is derived from (with the canonical bytes, so
    /// the key never names two different contents: <see cref="WebhookIdSeed"/>), or null when absent.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: given twice or not <see cref="StandardWebhooks.IdRule"/>.</exception>
    public static WebhookIdSeed? ReadIdempotencyKey(HttpRequest request)
    {
        var value = Single(request, IdempotencyKey);
        if (value is null)
        {
            return null;
        }

        return StandardWebhooks.IsValidId(value)
            ? WebhookIdSeed.FromIdempotencyKey(value)
            : throw Problems.InvalidRequest($"The {IdempotencyKey} header must be {StandardWebhooks.IdRule} (with the content, it names {StandardWebhooks.IdHeader}).");
    }

    /// <summary>The three <c>webhook-*</c> headers, or null when none is given.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: only some are given, or one is malformed or over its bound.</exception>
    public static WebhookClaim? ReadClaim(HttpRequest request)
    {
        var id = Single(request, StandardWebhooks.IdHeader);
        var timestamp = Single(request, StandardWebhooks.TimestampHeader);
        var signature = Single(request, StandardWebhooks.SignatureHeader);
        if (id is null && timestamp is null && signature is null)
        {
            return null;
        }

        if (id is null || timestamp is null || signature is null)
        {
            var missing = id is null ? StandardWebhooks.IdHeader : timestamp is null ? StandardWebhooks.TimestampHeader : StandardWebhooks.SignatureHeader;
            throw Problems.InvalidRequest($"The {missing} header is missing: Standard Webhooks verification needs {StandardWebhooks.IdHeader}, {StandardWebhooks.TimestampHeader} and {StandardWebhooks.SignatureHeader} together.");
        }

        if (!StandardWebhooks.IsValidId(id))
        {
            throw Problems.InvalidRequest($"The {StandardWebhooks.IdHeader} header must be {StandardWebhooks.IdRule}.");
        }

        if (timestamp.Length is 0 or > StandardWebhooks.MaxTimestampDigits || !timestamp.All(char.IsAsciiDigit)
            || !long.TryParse(timestamp, NumberStyles.None, CultureInfo.InvariantCulture, out var seconds))
        {
            throw Problems.InvalidRequest($"The {StandardWebhooks.TimestampHeader} header must be Unix seconds: 1 to {StandardWebhooks.MaxTimestampDigits} digits.");
        }

        if (signature.Length > StandardWebhooks.MaxSignatureHeaderLength)
        {
            throw Problems.InvalidRequest($"The {StandardWebhooks.SignatureHeader} header is longer than {StandardWebhooks.MaxSignatureHeaderLength} characters.");
        }

        // Bounded above, so splitting costs at most MaxSignatureHeaderLength characters.
        var parts = signature.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length > StandardWebhooks.MaxSignatureEntries)
        {
            throw Problems.InvalidRequest($"The {StandardWebhooks.SignatureHeader} header has more than {StandardWebhooks.MaxSignatureEntries} entries.");
        }

        var entries = new List<Signature>(parts.Length);
        var ed25519 = new List<byte[]>();
        foreach (var part in parts)
        {
            var entry = part.AsSpan();
            if (entry.StartsWith(StandardWebhooks.Ed25519VersionPrefix, StringComparison.Ordinal))
            {
                var value = new byte[Keys.Ed25519Key.SignatureBytes + 2];
                if (!Convert.TryFromBase64Chars(entry[StandardWebhooks.Ed25519VersionPrefix.Length..], value, out var length) || length != Keys.Ed25519Key.SignatureBytes)
                {
                    throw Problems.InvalidRequest($"A {StandardWebhooks.Ed25519VersionPrefix} entry of the {StandardWebhooks.SignatureHeader} header must be base64 of {Keys.Ed25519Key.SignatureBytes} bytes.");
                }

                ed25519.Add(value[..Keys.Ed25519Key.SignatureBytes]);
                continue;
            }

            // Entries of other versions are skipped, as the spec asks of a verifier.
            if (!entry.StartsWith(StandardWebhooks.VersionPrefix, StringComparison.Ordinal))
            {
                continue;
            }

            if (!Signature.TryParseBase64(entry[StandardWebhooks.VersionPrefix.Length..], out var parsed))
            {
                throw Problems.InvalidRequest($"A {StandardWebhooks.VersionPrefix} entry of the {StandardWebhooks.SignatureHeader} header must be base64 of {Signature.Length} bytes.");
            }

            entries.Add(parsed);
        }

        if (entries.Count == 0 && ed25519.Count == 0)
        {
            throw Problems.InvalidRequest($"The {StandardWebhooks.SignatureHeader} header has no {StandardWebhooks.VersionPrefix}<base64> or {StandardWebhooks.Ed25519VersionPrefix}<base64> entry.");
        }

        return new WebhookClaim(id, seconds, entries) { Ed25519Signatures = ed25519 };
    }

    private static string? Single(HttpRequest request, string name)
    {
        ArgumentNullException.ThrowIfNull(request);
        return RequestValues.SingleHeader(request.Headers[name], name, RequestValues.HeaderWording)?.Trim();
    }
}
