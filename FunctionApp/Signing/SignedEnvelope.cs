using FunctionApp.Keys;
using Microsoft.IO;

namespace FunctionApp.Signing;

/// <summary>
/// The result of signing: the signature and the exact canonical bytes it covers, held in a pooled stream.
/// Dispose it (once) to return the stream's blocks to the pool.
/// </summary>
public sealed class SignedEnvelope : IDisposable, IAsyncDisposable
{
    /// <summary>The algorithm name reported to clients.</summary>
    public const string AlgorithmName = "HMACSHA256";

    private readonly EnvelopeBudgetLease? _lease;
    private RecyclableMemoryStream? _canonical;

    internal SignedEnvelope(RecyclableMemoryStream canonical, Signature signature, string keyId, int widgetCount, EnvelopeBudgetLease? lease = null)
    {
        _canonical = canonical;
        _lease = lease;
        Signature = signature;
        KeyId = keyId;
        WidgetCount = widgetCount;
        CanonicalLength = canonical.Length;
    }

    /// <summary>Always <see cref="AlgorithmName"/>.</summary>
    public string Algorithm => AlgorithmName;

    /// <summary>The HMAC-SHA256 of the canonical bytes.</summary>
    public Signature Signature { get; }

    /// <summary>The id of the key that made <see cref="Signature"/>.</summary>
    public string KeyId { get; }

    /// <summary>How many widgets were signed.</summary>
    public int WidgetCount { get; }

    /// <summary>The length of the canonical bytes.</summary>
    public long CanonicalLength { get; }

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
    /// Charges a second copy of the canonical bytes (the queue's blob upload makes one) to the budget this envelope holds,
    /// released with it.
    /// </summary>
    /// <exception cref="MemoryBudgetExceededException">The budget has no room for the copy.</exception>
    internal void ChargeCopy() => _lease?.Cover(_lease.Charged + CanonicalLength);

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
