using System.Security.Cryptography;
using System.Text;

namespace WidgetSigning.Signing;

/// <summary>
/// What a <c>webhook-id</c> is derived from when the caller names the message: an <c>Idempotency-Key</c> on
/// <c>/api/sign</c> (namespace <see cref="HttpNamespace"/>) or a queue message's id (namespace
/// <see cref="QueueNamespace"/>). The id is <c>&lt;namespace&gt;_</c> followed by the base64url SHA-256 of
/// <c>widget-signing/webhook-id/v1\n&lt;namespace&gt;\n&lt;key&gt;\n</c> and the canonical bytes, so
/// <list type="bullet">
/// <item>a byte-identical retry (same key, same canonical bytes) gets the same id, and stays deduplicable;</item>
/// <item>the same key with different content gets a different id: one <c>webhook-id</c> never goes out for two different canonical forms;</item>
/// <item>HTTP, queue and generated (<c>msg_</c>) ids have different prefixes, so no caller can pick a key that equals
/// another namespace's id, and a caller reusing another producer's key only ever suppresses a byte-identical copy.</item>
/// </list>
/// Stateless: every instance derives the same id, so nothing is shared between instances.
/// </summary>
internal readonly record struct WebhookIdSeed
{
    /// <summary>The namespace of ids derived from an HTTP <c>Idempotency-Key</c>.</summary>
    public const string HttpNamespace = "idem";

    /// <summary>The namespace of ids derived from a queue message's id.</summary>
    public const string QueueNamespace = "queue";

    /// <summary>Characters of a derived id: the namespace, '_', and 43 base64url characters (256 bits).</summary>
    private const int DigestChars = 43;

    private WebhookIdSeed(string ns, string key)
    {
        Namespace = ns;
        Key = key;
    }

    /// <summary>The namespace (the id's prefix).</summary>
    public string Namespace { get; }

    /// <summary>The caller's key (an <c>Idempotency-Key</c> or a queue message id).</summary>
    public string Key { get; }

    /// <summary>A seed from an HTTP <c>Idempotency-Key</c>.</summary>
    /// <exception cref="ArgumentException"><paramref name="key"/> breaks <see cref="StandardWebhooks.IsValidId"/>.</exception>
    public static WebhookIdSeed FromIdempotencyKey(string key) => new(HttpNamespace, Checked(key));

    /// <summary>A seed from a queue message's id.</summary>
    /// <exception cref="ArgumentException"><paramref name="messageId"/> breaks <see cref="StandardWebhooks.IsValidId"/>.</exception>
    public static WebhookIdSeed FromQueueMessageId(string messageId) => new(QueueNamespace, Checked(messageId));

    /// <summary>A new SHA-256 already fed the domain, the namespace and the key; feed it the canonical bytes, then <c>IdFor</c> with the digest.</summary>
    internal IncrementalHash StartDigest()
    {
        var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        hash.AppendData(Encoding.ASCII.GetBytes($"widget-signing/webhook-id/v1\n{Namespace}\n{Key}\n"));
        return hash;
    }

    /// <summary>The id for a digest from <see cref="StartDigest"/>.</summary>
    internal string IdFor(ReadOnlySpan<byte> digest)
    {
        // base64url without padding (RFC 4648 §5), written by hand: Base64Url is .NET 9+ and the core also targets net8.0.
        Span<char> base64 = stackalloc char[DigestChars + 1];
        Convert.TryToBase64Chars(digest, base64, out _);
        Span<char> chars = stackalloc char[Namespace.Length + 1 + DigestChars];
        Namespace.CopyTo(chars);
        chars[Namespace.Length] = '_';
        for (var i = 0; i < DigestChars; i++)
        {
            chars[Namespace.Length + 1 + i] = base64[i] switch { '+' => '-', '/' => '_', var c => c };
        }

        return new string(chars);
    }

    /// <summary>The id <paramref name="canonical"/> gets under this seed (for tests and receivers' tooling).</summary>
    public string IdFor(in System.Buffers.ReadOnlySequence<byte> canonical)
    {
        using var hash = StartDigest();
        foreach (var segment in canonical)
        {
            hash.AppendData(segment.Span);
        }

        Span<byte> digest = stackalloc byte[32];
        hash.GetHashAndReset(digest);
        return IdFor(digest);
    }

    /// <inheritdoc />
    public override string ToString() => $"{Namespace}:{Key}";

    private static string Checked(string key) => StandardWebhooks.IsValidId(key)
        ? key
        : throw new ArgumentException($"A webhook id key must be {StandardWebhooks.IdRule}.", nameof(key));
}
