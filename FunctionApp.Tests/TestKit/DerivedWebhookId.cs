using System.Security.Cryptography;
using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// The derived <c>webhook-id</c> and the Standard Webhooks signature, computed here from the formulas in docs/api.md
/// (not with the service's code), so a test checks the answer against what a receiver can compute.
/// </summary>
public static class DerivedWebhookId
{
    /// <summary><c>&lt;ns&gt;_</c> + base64url(SHA-256("widget-signing/webhook-id/v1\n&lt;ns&gt;\n&lt;key&gt;\n" + canonical)), unpadded.</summary>
    public static string Of(string ns, string key, byte[] canonical)
    {
        var digest = SHA256.HashData(Encoding.ASCII.GetBytes($"widget-signing/webhook-id/v1\n{ns}\n{key}\n").Concat(canonical).ToArray());
        return ns + "_" + Convert.ToBase64String(digest).TrimEnd('=').Replace('+', '-').Replace('/', '_');
    }

    /// <summary>The id an HTTP <c>Idempotency-Key</c> gives <paramref name="canonical"/>.</summary>
    public static string ForIdempotencyKey(string key, byte[] canonical) => Of("idem", key, canonical);

    /// <summary>The id a queue message id gives <paramref name="canonical"/>.</summary>
    public static string ForQueueMessage(string messageId, byte[] canonical) => Of("queue", messageId, canonical);

    /// <summary><c>v1,</c> + base64(HMAC-SHA256(key, id.timestamp. + canonical)), as the spec defines it.</summary>
    public static string WebhookSignature(byte[] key, string id, string timestamp, byte[] canonical) =>
        "v1," + Convert.ToBase64String(HMACSHA256.HashData(key, Encoding.UTF8.GetBytes($"{id}.{timestamp}.").Concat(canonical).ToArray()));
}
