using WidgetSigning.Envelopes;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;
using WidgetSigning.Pipeline;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using WidgetSigning.Primitives;

namespace WidgetSigning.Signing;

/// <summary>
/// Signs envelopes: writes the canonical JSON into a pooled stream and computes HMAC-SHA256 over the
/// stream's blocks. Host-independent: nothing here knows about Functions, HTTP or queues.
/// </summary>
internal sealed class EnvelopeSigner
{
    private const string StreamTag = "canonical-envelope";

    // {"widgets":[]}, and one widget with empty strings and a whole-second date (a lower bound).
    private const int MinimumEnvelopeBytes = 14;
    private const int MinimumWidgetBytes = 231;

    // Writing and hashing overlap on two cores only when the spare-core policy says it pays (SpareCorePolicy). 16 KB
    // chunks start the hashing sooner than 64 KB blocks.
    private const int OverlapChunkBytes = 16 * 1024;

    // The hand-over array behind the reader is presized from the body (like the reader's own list) up to this.
    private const int MaxHandOverWidgets = 8 * 1024;

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly IReceiverKeySource _keys;
    private readonly ILogger<EnvelopeSigner> _logger;
    private readonly TimeProvider _time;
    private readonly long _maxCanonicalBytes;
    private readonly SpareCorePolicy _spareCores;

    /// <summary>
    /// Creates the signer, with the system clock for <c>webhook-timestamp</c>; <paramref name="options"/> gives the
    /// canonical size limit (default <see cref="EnvelopeOptions.DefaultMaxCanonicalBytes"/>), <paramref name="spareCores"/>
    /// when work may go to a second core (default: a policy of its own with <see cref="SpareCoreOptions"/>' defaults).
    /// </summary>
    public EnvelopeSigner(
        RecyclableMemoryStreamManager streams, IReceiverKeySource keys, ILogger<EnvelopeSigner> logger, IOptions<EnvelopeOptions>? options = null, SpareCorePolicy? spareCores = null)
        : this(streams, keys, TimeProvider.System, logger, options, spareCores)
    {
    }

    /// <summary>
    /// Creates the signer; <paramref name="time"/> gives <c>webhook-timestamp</c>, <paramref name="options"/> the
    /// canonical size limit (default <see cref="EnvelopeOptions.DefaultMaxCanonicalBytes"/>), <paramref name="spareCores"/>
    /// when work may go to a second core (default: a policy of its own with <see cref="SpareCoreOptions"/>' defaults).
    /// </summary>
    public EnvelopeSigner(
        RecyclableMemoryStreamManager streams,
        IReceiverKeySource keys,
        TimeProvider time,
        ILogger<EnvelopeSigner> logger,
        IOptions<EnvelopeOptions>? options = null,
        SpareCorePolicy? spareCores = null)
    {
        _streams = streams;
        _keys = keys;
        _time = time;
        _logger = logger;
        _maxCanonicalBytes = options?.Value.MaxCanonicalBytes ?? EnvelopeOptions.DefaultMaxCanonicalBytes;
        _spareCores = spareCores ?? SpareCorePolicy.For(SpareCoreMode.Adaptive);
    }

    /// <summary>
    /// Signs <paramref name="envelope"/> for <paramref name="request"/>'s receivers: every receiver's keys' MACs, in the
    /// forms asked for, computed in one pass while the canonical bytes are written into pooled blocks. Dispose the result.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: a receiver has no key; nothing is signed.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.KeyUnavailable"/>: a receiver's key cannot sign now; nothing is signed.</exception>
    /// <exception cref="ArgumentException">The request's <see cref="SignRequest.WebhookId"/> breaks <see cref="StandardWebhooks.IsValidId"/>.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.CanonicalTooLarge"/>: the canonical form would exceed <see cref="EnvelopeOptions.MaxCanonicalBytes"/>.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: the memory budget has no room for the canonical form.</exception>
    public async ValueTask<SignedEnvelope> SignAsync(WidgetEnvelope envelope, SignRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        var plan = SignPlan.Of(request);
        var keys = await KeysFor(request, cancellationToken).ConfigureAwait(false);
        return SignAll(envelope, keys, plan, request.Lease);
    }

    /// <summary>
    /// Reads an envelope from <paramref name="utf8Json"/> with <paramref name="reader"/> and signs it as
    /// <see cref="SignAsync"/> does. When a core is spare, the keys are at hand and the body is large enough to repay it,
    /// the canonical form is written and hashed behind the reader, widget by widget, on that core
    /// (<see cref="SigningPipeline"/>), so the signature costs little more than reading. Without a spare core, with the keys
    /// at hand and the body's length known, the reader's thread writes and hashes each run of widgets as soon as it is
    /// read, so no widget outlives its run; otherwise it reads, then signs. Either way the bytes and signatures are the
    /// same, and the reader's errors come first.
    /// <para>
    /// Takes ownership of <paramref name="utf8Json"/> (a pooled request body, say): it is disposed once read, before
    /// signing starts, so its blocks and the canonical form's are held together only behind the reader. The request's
    /// lease holds the body's charge; behind the reader it is charged for the body and the canonical form together, and
    /// only if the budget has room for both now. Once the body is disposed, the lease keeps only what the canonical form takes.
    /// </para>
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the body is not a valid envelope.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: a receiver has no key; nothing is signed.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.KeyUnavailable"/>: a receiver's key cannot sign now; nothing is signed.</exception>
    /// <exception cref="ArgumentException">The request's <see cref="SignRequest.WebhookId"/> breaks <see cref="StandardWebhooks.IsValidId"/>.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.CanonicalTooLarge"/>: the canonical form would exceed <see cref="EnvelopeOptions.MaxCanonicalBytes"/>.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: the memory budget has no room for the canonical form.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Reliability", "CA2000:Dispose objects before losing scope", Justification = "The signed envelope is the result: the caller owns it through the ValueTask.")]
    public ValueTask<SignedEnvelope> ReadAndSignAsync(Stream utf8Json, WidgetEnvelopeReader reader, SignRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);
        WidgetEnvelope? envelope = null;
        SignedEnvelope? behind = null;
        ValueTask<ReceiverKeys[]> pendingKeys = default;
        var keysAsked = false;
        var lease = request?.Lease;
        SignPlan plan = default;
        var inFlight = _spareCores.Enter();
        try
        {
            ArgumentNullException.ThrowIfNull(reader);
            ArgumentNullException.ThrowIfNull(request);
            plan = SignPlan.Of(request);
            pendingKeys = KeysFor(request, cancellationToken);
            keysAsked = true;
            var helper = utf8Json.CanSeek && inFlight.SpareCoreFor(utf8Json.Length - utf8Json.Position);
            if (pendingKeys.IsCompletedSuccessfully && utf8Json.CanSeek)
            {
                // Taken once: a ValueTask may be consumed only once, and the fallback below awaits this one instead.
                var keys = pendingKeys.Result;
                pendingKeys = new ValueTask<ReceiverKeys[]>(keys);
                behind = TryReadAndSignBehind(utf8Json, reader, keys, plan, lease, helper);
            }

            // Otherwise read first: a bad body is a 400 even while the keys are still loading (or failing).
            envelope = behind is null ? reader.Read(utf8Json) : null;
        }
        catch when (keysAsked && !pendingKeys.IsCompletedSuccessfully)
        {
            // The read failed: nobody will await the keys, so a failure to get them must not go unobserved.
            _ = pendingKeys.AsTask().ContinueWith(static t => t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted, TaskScheduler.Default);
            throw;
        }
        finally
        {
            inFlight.Dispose();
            utf8Json.Dispose();
        }

        if (behind is null)
        {
            // Only now, with the body back in the pool (above): its blocks and the canonical form's are never held together here.
            return SignAfterReadingAsync(envelope!, pendingKeys, plan, lease);
        }

        behind.ReleaseAllButCanonical();
        return ValueTask.FromResult(behind);
    }

    private ValueTask<ReceiverKeys[]> KeysFor(SignRequest request, CancellationToken cancellationToken)
    {
        if (request.Keys is not { } given)
        {
            return ReceiverKeyLookup.GetAsync(_keys, request.Receivers, cancellationToken);
        }

        var matches = given.Count == request.Receivers.Count;
        for (var i = 0; matches && i < given.Count; i++)
        {
            matches = given[i].Receiver == request.Receivers[i];
        }

        if (!matches)
        {
            throw new ArgumentException("A sign request's keys must be its receivers', in the same order.", nameof(request));
        }

        return ValueTask.FromResult(given as ReceiverKeys[] ?? [.. given]);
    }

    private async ValueTask<SignedEnvelope> SignAfterReadingAsync(WidgetEnvelope envelope, ValueTask<ReceiverKeys[]> pendingKeys, SignPlan plan, EnvelopeBudgetLease? lease)
    {
        var keys = await pendingKeys.ConfigureAwait(false);
        var signed = SignAll(envelope, keys, plan, lease);

        // The body went back to the pool before signing: its charge, where larger than the canonical form's, goes too.
        signed.ReleaseAllButCanonical();
        return signed;
    }

    private SignedEnvelope SignAll(WidgetEnvelope envelope, ReceiverKeys[] keys, SignPlan plan, EnvelopeBudgetLease? lease)
    {
        var timestamp = _time.GetUtcNow().ToUnixTimeSeconds();
        var macs = CreateMacs(keys, plan, timestamp);
        RecyclableMemoryStream? canonical = null;
        using var inFlight = _spareCores.Enter();
        try
        {
            // Sized up front from a lower bound (each widget's fixed members), so the stream doesn't grow its block
            // list one block at a time on large envelopes.
            var estimate = Math.Min(EstimateCanonicalLength(envelope), _maxCanonicalBytes);
            lease?.Cover(estimate);
            canonical = _streams.GetStream(StreamTag, estimate);
            var destination = new BudgetedBufferWriter(canonical, lease, _maxCanonicalBytes);
            if (inFlight.SpareCoreFor(estimate))
            {
                // Two cores: this thread writes, the spare core feeds the MACs each 16 KB, and this thread takes a
                // chunk of hashing off it whenever it falls behind, so both finish together.
                OverlappedHashingBufferWriter.Write(
                    destination, macs.All, OverlapChunkBytes, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks));
            }
            else
            {
                CanonicalUtf8Writer.Write(envelope, new HashingBufferWriter(destination, macs.All));
            }

            return Seal(canonical, macs, keys, plan, timestamp, envelope.Widgets.Count, lease);
        }
        catch
        {
            macs.Abandon();
            canonical?.Dispose();
            throw;
        }
    }

    // Null when the budget has no room for the body and the canonical form together now: the caller reads, then signs.
    // With a helper, a spare core writes and hashes behind the reader; without, the reader's thread does after each run.
    // Either way no widget is kept once written, and a failure to write is thrown only once reading has succeeded.
    private SignedEnvelope? TryReadAndSignBehind(Stream utf8Json, WidgetEnvelopeReader reader, ReceiverKeys[] keys, SignPlan webhookId, EnvelopeBudgetLease? lease, bool helper)
    {
        var timestamp = _time.GetUtcNow().ToUnixTimeSeconds();
        var macs = CreateMacs(keys, webhookId, timestamp);
        var held = lease?.Charged ?? 0;
        var body = utf8Json.Length - utf8Json.Position;

        // Charged before the stream takes its blocks (whole blocks, as the stream will take them), so the pool never
        // holds more than the budget, even for a moment.
        var blockSize = _streams.Settings.BlockSize;
        var reserve = (Math.Min(body, _maxCanonicalBytes) + blockSize - 1) / blockSize * blockSize;
        if (lease is not null && !lease.TryCoverNow(held + reserve))
        {
            macs.Abandon();
            return null;
        }

        var canonical = _streams.GetStream(StreamTag, reserve);

        SigningPipeline? pipeline = null;
        try
        {
            var destination = new HashingBufferWriter(new BudgetedBufferWriter(canonical, lease, _maxCanonicalBytes, held), macs.All);
            pipeline = new SigningPipeline(
                destination,
                (int)Math.Min(body / MinimumWidgetBytes, MaxHandOverWidgets),
                _spareCores,
                inline: !helper);
            if (helper)
            {
                pipeline.Start();
            }

            if (helper && utf8Json is RecyclableMemoryStream pooled)
            {
                // The spare core also scans the body's blocks ahead of the reader (~0.8 ms of a 1 MB body), beside the
                // pipeline's helper, which mostly sleeps between runs.
                ScanAheadStream.ReadInto(reader, pooled, pipeline);
            }
            else
            {
                reader.ReadInto(utf8Json, pipeline);
            }

            pipeline.Complete();
            return Seal(canonical, macs, keys, webhookId, timestamp, pipeline.Count, lease);
        }
        catch
        {
            pipeline?.Abandon();
            macs.Abandon();
            canonical.Dispose();
            throw;
        }
    }

    // Only the chains the forms need: the plain form one per key; the Standard Webhooks form one per key, fed its
    // id.timestamp. prefix here when the id is known now, or after the pass (with a SHA-256 in the pass for the id) when
    // the id is derived from the bytes.
    internal static KeyMacs CreateMacs(ReceiverKeys[] keys, SignPlan plan, long timestamp)
    {
        var plain = plan.Forms.HasPlain();
        if (!plan.Forms.HasWebhook())
        {
            return KeyMacs.PlainOnly(keys);
        }

        if (plan.Seed is { } seed)
        {
            return KeyMacs.Deferred(keys, plain, seed.StartDigest());
        }

        Span<byte> prefix = stackalloc byte[StandardWebhooks.MaxPrefixBytes];
        return KeyMacs.Prefixed(keys, plain, prefix[..StandardWebhooks.WritePrefix(prefix, plan.Literal!, timestamp)]);
    }

    /// <summary>
    /// The forms to make and, with the Standard Webhooks form, the webhook id as given (known answers, a generated
    /// <c>msg_</c> id) or a seed to derive it from. Without that form there is no id: none is generated.
    /// </summary>
    internal readonly record struct SignPlan(SignatureForms Forms, string? Literal, WebhookIdSeed? Seed)
    {
        /// <summary>The plan <paramref name="request"/> asks for: its literal id, its seed, or a new <c>msg_</c> id.</summary>
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
    }

    // Labels the MACs, receiver by receiver: its current key's (X-Signature, and the first webhook-signature entry), then
    // each staged key's. The webhook id and timestamp are the envelope's, the same for every receiver.
    private SignedEnvelope Seal(
        RecyclableMemoryStream canonical, KeyMacs macs, ReceiverKeys[] keys, SignPlan plan, long timestamp, int widgetCount, EnvelopeBudgetLease? lease)
    {
        var values = macs.Complete();
        var plain = plan.Forms.HasPlain();
        string? webhookId = null;
        var bytes = default(System.Buffers.ReadOnlySequence<byte>);
        if (plan.Forms.HasWebhook())
        {
            // Derived id: known only now, so the Standard Webhooks MACs (id.timestamp. + bytes) take one pass over the
            // written bytes, one per key.
            webhookId = plan.Seed is { } seed ? seed.IdFor(values[macs.DigestAt].Bytes) : plan.Literal!;
            bytes = plan.Seed is null ? default : canonical.GetReadOnlySequence();
        }

        var receivers = new ReceiverSignature[keys.Length];
        for (var r = 0; r < keys.Length; r++)
        {
            var first = macs.FirstKeyOf(r);
            var count = macs.KeyCountOf(r);
            var current = macs.Key(first);
            KeySignature[] labelled = [];
            if (plain)
            {
                labelled = new KeySignature[count];
                for (var i = 0; i < count; i++)
                {
                    labelled[i] = new KeySignature(macs.Key(first + i).KeyId, i == 0 ? KeyState.Current : KeyState.Staged, values[macs.PlainAt(first + i)]);
                }
            }

            var header = webhookId is null ? null : WebhookHeader(macs, values, first, count, webhookId, timestamp, bytes, plan.Seed is null);
            receivers[r] = new ReceiverSignature(keys[r].Receiver, current.KeyId, labelled, header);
            SigningLog.Signed(_logger, widgetCount, canonical.Length, keys[r].Receiver.Value, current.KeyId);
        }

        return new SignedEnvelope(canonical, plan.Forms, receivers, webhookId, timestamp, widgetCount, values[macs.CanonicalDigestAt], lease);
    }

    // webhook-signature written once into a stack buffer ("v1," + 44 base64 characters + a space per key), so a
    // signature costs one header string rather than a builder and a string per entry.
    private static string WebhookHeader(
        KeyMacs macs, Signature[] values, int first, int count, string webhookId, long timestamp, System.Buffers.ReadOnlySequence<byte> bytes, bool prefixed)
    {
        const int EntryChars = 3 + 44 + 1;
        var header = count <= 8 ? stackalloc char[count * EntryChars] : new char[count * EntryChars];
        var length = 0;
        for (var i = 0; i < count; i++)
        {
            if (i > 0)
            {
                header[length++] = ' ';
            }

            var entry = prefixed ? values[macs.PrefixedAt(first + i)] : StandardWebhooks.Sign(macs.Key(first + i), webhookId, timestamp, bytes);
            length = AppendEntry(header, length, entry);
        }

        return new string(header[..length]);
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
