using WidgetSigning.Keys;
using Microsoft.IO;

namespace WidgetSigning.Signing;

/// <summary>
/// The result of signing: the signatures of the <see cref="Forms"/> made and the exact canonical bytes they cover, held
/// in a pooled stream. Dispose it (once) to return the stream's blocks to the pool.
/// </summary>
internal sealed class SignedEnvelope : IDisposable, IAsyncDisposable
{
    /// <summary>The algorithm name reported to clients.</summary>
    public const string AlgorithmName = "HMACSHA256";

    private readonly EnvelopeBudgetLease? _lease;
    private RecyclableMemoryStream? _canonical;

    internal SignedEnvelope(
        RecyclableMemoryStream canonical, SignatureForms forms, IReadOnlyList<ReceiverSignature> receivers, string? webhookId, long timestamp, int widgetCount, Signature canonicalSha256, EnvelopeBudgetLease? lease = null)
    {
        _canonical = canonical;
        _lease = lease;
        Forms = forms;
        Receivers = receivers;
        WidgetCount = widgetCount;
        CanonicalLength = canonical.Length;
        CanonicalSha256 = canonicalSha256;
        Algorithm = AlgorithmOf(receivers);
        var first = receivers[0];
        Webhook = webhookId is null ? null : new WebhookSignature(webhookId, timestamp, first.WebhookHeader!);
    }

    /// <summary>The forms made: the plain signature (<see cref="Signature"/>, <see cref="Signatures"/>), the Standard Webhooks one (<see cref="Webhook"/>), or both.</summary>
    public SignatureForms Forms { get; }

    /// <summary>Each receiver's signatures, in the order asked for; each made with that receiver's keys only.</summary>
    public IReadOnlyList<ReceiverSignature> Receivers { get; }

    /// <summary>The first (with one receiver, the only) receiver.</summary>
    public ReceiverId Receiver => Receivers[0].Receiver;

    /// <summary>
    /// The first receiver's plain signatures, labelled: the current key's first (the same value as <see cref="Signature"/>),
    /// then each staged key's, so the receiver can switch to a new key before it becomes current. Empty without the plain form.
    /// </summary>
    public IReadOnlyList<KeySignature> Signatures => Receivers[0].Signatures;

    /// <summary>
    /// The Standard Webhooks id and timestamp (the same for every receiver), with the first receiver's
    /// <c>webhook-signature</c>; null without that form.
    /// </summary>
    public WebhookSignature? Webhook { get; }

    /// <summary>
    /// The schemes the answer carries (<see cref="SignatureAlgorithms"/>): <see cref="AlgorithmName"/> when every
    /// receiver's keys are HMAC, as before there was a choice.
    /// </summary>
    public string Algorithm { get; }

    /// <summary>The first receiver's plain Ed25519 signatures (<c>X-Signature-Ed25519</c>); empty without that form or without Ed25519 keys.</summary>
    public IReadOnlyList<Ed25519KeySignature> Ed25519Signatures => Receivers[0].Ed25519Signatures;

    /// <summary>Whether the first receiver's plain HMAC signature (<see cref="Signature"/>) was made.</summary>
    public bool HasHmacSignature => Forms.HasPlain() && Receivers[0].Signatures.Count > 0;

    /// <summary>The first receiver's current key's HMAC-SHA256 of the canonical bytes (<c>X-Signature</c>).</summary>
    /// <exception cref="InvalidOperationException">The plain form was not made (<see cref="Forms"/> is <see cref="SignatureForms.Webhook"/>): no such MAC was computed.</exception>
    public Signature Signature => HasHmacSignature
        ? Receivers[0].Signatures[0].Signature
        : throw new InvalidOperationException($"No plain HMAC signature was made: the forms made are '{SignatureFormNames.NameOf(Forms)}', the schemes '{Algorithm}'.");

    /// <summary>The id of the first receiver's current key, which made <see cref="Signature"/> and its first <c>webhook-signature</c> entry.</summary>
    public string KeyId => Receivers[0].KeyId;

    /// <summary>How many widgets were signed.</summary>
    public int WidgetCount { get; }

    /// <summary>The length of the canonical bytes.</summary>
    public long CanonicalLength { get; }

    /// <summary>
    /// The SHA-256 of the canonical bytes (not a MAC: anyone holding the bytes can compute it), computed in the same pass
    /// that wrote them; audit records name the envelope by it.
    /// </summary>
    public Signature CanonicalSha256 { get; }

    // Once per signature, read by every answer (headers, JSON, queue message).
    private static string AlgorithmOf(IReadOnlyList<ReceiverSignature> receivers)
    {
        bool hmac = false, ed25519 = false;
        foreach (var receiver in receivers)
        {
            hmac |= receiver.HasHmac;
            ed25519 |= receiver.HasEd25519;
        }

        return SignatureAlgorithms.Of(hmac, ed25519);
    }

    /// <summary>Copies the canonical bytes to <paramref name="destination"/> straight from the pooled blocks.</summary>
    public Task CopyCanonicalToAsync(Stream destination, CancellationToken cancellationToken)
    {
        var canonical = _canonical ?? throw new ObjectDisposedException(nameof(SignedEnvelope));
        canonical.Position = 0;
        return canonical.CopyToAsync(destination, cancellationToken);
    }

    /// <summary>The canonical bytes as a sequence over the pooled blocks; valid until disposal.</summary>
    public System.Buffers.ReadOnlySequence<byte> GetCanonicalBytes() =>
        (_canonical ?? throw new ObjectDisposedException(nameof(SignedEnvelope))).GetReadOnlySequence();

    /// <summary>
    /// After the body the canonical form was written beside has gone back to the pool: the lease keeps only what the
    /// canonical blocks take.
    /// </summary>
    internal void ReleaseAllButCanonical()
    {
        var canonical = _canonical;
        if (canonical is not null)
        {
            _lease?.ShrinkTo(canonical.Capacity64);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        Interlocked.Exchange(ref _canonical, null)?.Dispose();

        // The blocks are back in the pool: the budget they were charged to has room again.
        _lease?.Dispose();
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
