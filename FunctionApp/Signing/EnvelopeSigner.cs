using FunctionApp.Envelopes;
using FunctionApp.Keys;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Signing;

/// <summary>
/// Signs envelopes: writes the canonical JSON into a pooled stream and computes HMAC-SHA256 over the
/// stream's blocks. Host-independent: nothing here knows about Functions, HTTP or queues.
/// </summary>
public sealed class EnvelopeSigner
{
    private const string StreamTag = "canonical-envelope";

    // {"widgets":[]}, and one widget with empty strings and a whole-second date (a lower bound).
    private const int MinimumEnvelopeBytes = 14;
    private const int MinimumWidgetBytes = 231;

    // Writing and hashing overlap on two cores only when that can shorten a signature: an envelope large enough
    // to repay the hand-off (issue 13: a thread-pool wake-up is tens of µs; a 256 KB envelope takes ~250 µs to
    // sign), and a spare core (at most one signature in flight per two cores, and no work queued in the thread
    // pool), so under load, when every core is already busy, nothing is added. 16 KB chunks start the hashing sooner than 64 KB blocks.
    private const long OverlapMinimumBytes = 256 * 1024;
    private const int OverlapChunkBytes = 16 * 1024;

    private static int _inFlight;

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly ISigningKeySource _keys;
    private readonly ILogger<EnvelopeSigner> _logger;
    private readonly TimeProvider _time;
    private readonly long _maxCanonicalBytes;

    /// <summary>
    /// Creates the signer, with the system clock for <c>webhook-timestamp</c>; <paramref name="options"/> gives the
    /// canonical size limit (default <see cref="EnvelopeOptions.DefaultMaxCanonicalBytes"/>).
    /// </summary>
    public EnvelopeSigner(RecyclableMemoryStreamManager streams, ISigningKeySource keys, ILogger<EnvelopeSigner> logger, IOptions<EnvelopeOptions>? options = null)
        : this(streams, keys, TimeProvider.System, logger, options)
    {
    }

    /// <summary>
    /// Creates the signer; <paramref name="time"/> gives <c>webhook-timestamp</c>, <paramref name="options"/> the
    /// canonical size limit (default <see cref="EnvelopeOptions.DefaultMaxCanonicalBytes"/>).
    /// </summary>
    public EnvelopeSigner(
        RecyclableMemoryStreamManager streams, ISigningKeySource keys, TimeProvider time, ILogger<EnvelopeSigner> logger, IOptions<EnvelopeOptions>? options = null)
    {
        _streams = streams;
        _keys = keys;
        _time = time;
        _logger = logger;
        _maxCanonicalBytes = options?.Value.MaxCanonicalBytes ?? EnvelopeOptions.DefaultMaxCanonicalBytes;
    }

    /// <summary>Signs <paramref name="envelope"/> with the current and staged keys, under a new webhook id.</summary>
    /// <exception cref="SigningKeyUnavailableException">No key is available yet.</exception>
    public ValueTask<SignedEnvelope> SignAsync(WidgetEnvelope envelope, CancellationToken cancellationToken) =>
        SignAsync(envelope, webhookId: null, lease: null, cancellationToken);

    /// <summary>
    /// Signs <paramref name="envelope"/> with the current and staged keys; <paramref name="webhookId"/> (an
    /// <c>Idempotency-Key</c>, a queue message id) becomes <c>webhook-id</c>, or a new one when null. The canonical
    /// form's pooled blocks are charged to <paramref name="lease"/>, which the result then owns (and releases when disposed).
    /// </summary>
    /// <exception cref="SigningKeyUnavailableException">No key is available yet.</exception>
    /// <exception cref="ArgumentException"><paramref name="webhookId"/> breaks <see cref="StandardWebhooks.IsValidId"/>.</exception>
    /// <exception cref="CanonicalTooLargeException">The canonical form would exceed <see cref="EnvelopeOptions.MaxCanonicalBytes"/>.</exception>
    /// <exception cref="MemoryBudgetExceededException">The memory budget has no room for the canonical form.</exception>
    public async ValueTask<SignedEnvelope> SignAsync(WidgetEnvelope envelope, string? webhookId, EnvelopeBudgetLease? lease, CancellationToken cancellationToken)
    {
        var keys = await _keys.GetSigningKeysAsync(cancellationToken).ConfigureAwait(false);
        return SignAll(envelope, keys, webhookId ?? StandardWebhooks.NewId(), lease);
    }

    /// <summary>Signs <paramref name="envelope"/> with <paramref name="key"/> alone. Dispose the result.</summary>
    public SignedEnvelope Sign(WidgetEnvelope envelope, SigningKey key) => Sign(envelope, key, lease: null);

    /// <summary>Signs <paramref name="envelope"/> with <paramref name="key"/> alone, charging <paramref name="lease"/> (which the result then owns). Dispose the result.</summary>
    /// <exception cref="CanonicalTooLargeException">The canonical form would exceed <see cref="EnvelopeOptions.MaxCanonicalBytes"/>.</exception>
    /// <exception cref="MemoryBudgetExceededException">The memory budget has no room for the canonical form.</exception>
    public SignedEnvelope Sign(WidgetEnvelope envelope, SigningKey key, EnvelopeBudgetLease? lease) =>
        SignAll(envelope, new SigningKeys(key, []), StandardWebhooks.NewId(), lease);

    /// <summary>
    /// Signs <paramref name="envelope"/>: the current key while the canonical bytes are written (<c>X-Signature</c>),
    /// then each staged key and the Standard Webhooks form of each, streaming over the pooled blocks. The canonical
    /// blocks are charged to <paramref name="lease"/>, which the result then owns. Dispose the result.
    /// </summary>
    /// <exception cref="CanonicalTooLargeException">The canonical form would exceed <see cref="EnvelopeOptions.MaxCanonicalBytes"/>.</exception>
    /// <exception cref="MemoryBudgetExceededException">The memory budget has no room for the canonical form.</exception>
    public SignedEnvelope SignAll(WidgetEnvelope envelope, SigningKeys keys, string webhookId, EnvelopeBudgetLease? lease = null)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(keys);
        var key = keys.Current;
        // Sized up front from a lower bound (each widget's fixed members), so the stream doesn't grow its block
        // list one block at a time on large envelopes.
        var estimate = Math.Min(EstimateCanonicalLength(envelope), _maxCanonicalBytes);
        lease?.Cover(estimate);
        var canonical = _streams.GetStream(StreamTag, estimate);
        var inFlight = Interlocked.Increment(ref _inFlight);
        try
        {
            // Written straight into the stream's blocks, each block hashed as soon as it is full (or, with a core to
            // spare, each 16 KB hashed on it while writing goes on).
            var overlap = estimate >= OverlapMinimumBytes && inFlight <= Environment.ProcessorCount / 2 && ThreadPool.PendingWorkItemCount == 0
                ? OverlapChunkBytes
                : 0;
            var destination = new BudgetedBufferWriter(canonical, lease, _maxCanonicalBytes);
            var signature = key.SignWhileWriting(destination, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks), overlap);
            SigningLog.Signed(_logger, envelope.Widgets.Count, canonical.Length, key.KeyId);
            var signed = new SignedEnvelope(canonical, signature, key.KeyId, envelope.Widgets.Count, lease);
            AddRotationSignatures(signed, canonical.GetReadOnlySequence(), keys, webhookId);
            return signed;
        }
        catch
        {
            canonical.Dispose();
            throw;
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
        }
    }

    private void AddRotationSignatures(SignedEnvelope signed, System.Buffers.ReadOnlySequence<byte> canonical, SigningKeys keys, string webhookId)
    {
        var timestamp = _time.GetUtcNow().ToUnixTimeSeconds();
        var count = 1 + keys.Staged.Count;
        var labelled = new KeySignature[count];
        labelled[0] = signed.Signatures[0];

        // webhook-signature written once into a stack buffer ("v1," + 44 base64 characters + a space per key), so a
        // signature costs one header string rather than a builder and a string per entry.
        const int EntryChars = 3 + 44 + 1;
        var header = count <= 8 ? stackalloc char[count * EntryChars] : new char[count * EntryChars];
        var length = AppendEntry(header, 0, StandardWebhooks.Sign(keys.Current, webhookId, timestamp, canonical));
        for (var i = 0; i < keys.Staged.Count; i++)
        {
            var staged = keys.Staged[i];
            labelled[i + 1] = new KeySignature(staged.KeyId, KeyState.Staged, staged.Sign(canonical));
            header[length++] = ' ';
            length = AppendEntry(header, length, StandardWebhooks.Sign(staged, webhookId, timestamp, canonical));
        }

        signed.Signatures = labelled;
        signed.Webhook = new WebhookSignature(webhookId, timestamp, new string(header[..length]));
    }

    private static int AppendEntry(Span<char> header, int at, Signature signature)
    {
        StandardWebhooks.VersionPrefix.CopyTo(header[at..]);
        at += StandardWebhooks.VersionPrefix.Length;
        Convert.TryToBase64Chars(signature.Bytes, header[at..], out var written);
        return at + written;
    }

    internal static long EstimateCanonicalLength(WidgetEnvelope envelope) =>
        MinimumEnvelopeBytes + ((long)envelope.Widgets.Count * MinimumWidgetBytes);

    /// <summary>Writes the canonical bytes of <paramref name="envelope"/> to <paramref name="destination"/> (through a 16 KB staging buffer).</summary>
    public static void WriteCanonical(WidgetEnvelope envelope, Stream destination)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(destination);

        CanonicalUtf8Writer.Write(envelope, destination);
    }
}
