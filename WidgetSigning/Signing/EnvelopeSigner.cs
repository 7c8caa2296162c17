using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.SpareCores;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using WidgetSigning.Primitives;

namespace WidgetSigning.Signing;

/// <summary>
/// Signs envelopes: writes the canonical JSON into a pooled stream and computes every receiver's HMAC-SHA256 over the
/// bytes as they are written (docs/signing-contract.md). Host-independent: nothing here knows about Functions, HTTP or
/// queues. Where the work runs (this core, or a spare one too) is <see cref="CanonicalPass"/>'s choice alone.
/// </summary>
internal sealed class EnvelopeSigner
{
    private const string StreamTag = "canonical-envelope";

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly IReceiverKeySource _keys;
    private readonly WidgetEnvelopeReader _reader;
    private readonly CanonicalPass _pass;
    private readonly TimeProvider _time;
    private readonly ILogger<EnvelopeSigner> _logger;
    private readonly long _maxCanonicalBytes;

    /// <summary>
    /// Creates the signer: keys from <paramref name="keys"/>, bodies read with <paramref name="reader"/>, the canonical
    /// form written and hashed by <paramref name="pass"/> into <paramref name="streams"/>' blocks up to
    /// <see cref="EnvelopeOptions.MaxCanonicalBytes"/>, <c>webhook-timestamp</c> from <paramref name="time"/>.
    /// </summary>
    public EnvelopeSigner(
        RecyclableMemoryStreamManager streams,
        IReceiverKeySource keys,
        WidgetEnvelopeReader reader,
        CanonicalPass pass,
        IOptions<EnvelopeOptions> options,
        TimeProvider time,
        ILogger<EnvelopeSigner> logger)
    {
        ArgumentNullException.ThrowIfNull(options);
        _streams = streams;
        _keys = keys;
        _reader = reader;
        _pass = pass;
        _time = time;
        _logger = logger;
        _maxCanonicalBytes = options.Value.MaxCanonicalBytes;
    }

    /// <summary>
    /// Reads an envelope from <paramref name="utf8Json"/> and signs it for <paramref name="request"/>'s receivers: every
    /// receiver's keys' MACs, in the forms asked for. With the keys at hand and the body seekable, the canonical form is
    /// written and hashed behind the reader, run by run (<see cref="CanonicalPass.ReadBehind"/>), so the signature costs
    /// little more than reading; otherwise it reads, then signs. Either way the bytes and signatures are the same, and
    /// the reader's errors come first. Dispose the result.
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
    public ValueTask<SignedEnvelope> SignAsync(Stream utf8Json, SignRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);
        WidgetEnvelope? envelope = null;
        SignedEnvelope? behind = null;
        ValueTask<ReceiverKeys[]> pendingKeys = default;
        var keysAsked = false;
        var lease = request?.Lease;
        SignPlan plan = default;
        try
        {
            ArgumentNullException.ThrowIfNull(request);
            plan = SignPlan.Of(request);
            pendingKeys = ReceiverKeyLookup.GetAsync(_keys, request.Receivers, cancellationToken);
            keysAsked = true;
            if (pendingKeys.IsCompletedSuccessfully && utf8Json.CanSeek)
            {
                // Taken once: a ValueTask may be consumed only once, and the fallback below awaits this one instead.
                var keys = pendingKeys.Result;
                pendingKeys = new ValueTask<ReceiverKeys[]>(keys);
                behind = TrySignBehindReader(utf8Json, keys, plan, lease);
            }

            // Otherwise read first: a bad body is a 400 even while the keys are still loading (or failing).
            envelope = behind is null ? _pass.Read(utf8Json, _reader) : null;
        }
        catch when (keysAsked && !pendingKeys.IsCompletedSuccessfully)
        {
            // The read failed: nobody will await the keys, so a failure to get them must not go unobserved.
            _ = pendingKeys.AsTask().ContinueWith(static t => t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted, TaskScheduler.Default);
            throw;
        }
        finally
        {
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

    /// <summary>
    /// Signs <paramref name="envelope"/>, already in memory, as <see cref="SignAsync(Stream, SignRequest, CancellationToken)"/>
    /// signs a body once read. Dispose the result.
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
        var keys = await ReceiverKeyLookup.GetAsync(_keys, request.Receivers, cancellationToken).ConfigureAwait(false);
        return SignAll(envelope, keys, plan, request.Lease);
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
        var macs = plan.CreateMacs(keys, timestamp);
        RecyclableMemoryStream? canonical = null;
        try
        {
            // Sized up front from a lower bound (each widget's fixed members), so the stream doesn't grow its block
            // list one block at a time on large envelopes.
            var estimate = Math.Min(CanonicalUtf8Writer.MinimumLength(envelope), _maxCanonicalBytes);
            lease?.Cover(estimate);
            canonical = _streams.GetStream(StreamTag, estimate);
            _pass.Write(envelope, new BudgetedBufferWriter(canonical, lease, _maxCanonicalBytes), macs.All, estimate);
            return SignatureSeal.Seal(canonical, macs, keys, plan, timestamp, envelope.Widgets.Count, lease, _logger, _pass);
        }
        catch
        {
            macs.Abandon();
            canonical?.Dispose();
            throw;
        }
    }

    // Null when the budget has no room for the body and the canonical form together now: the caller reads, then signs.
    private SignedEnvelope? TrySignBehindReader(Stream utf8Json, ReceiverKeys[] keys, SignPlan plan, EnvelopeBudgetLease? lease)
    {
        var timestamp = _time.GetUtcNow().ToUnixTimeSeconds();
        var macs = plan.CreateMacs(keys, timestamp);
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
        try
        {
            var count = _pass.ReadBehind(utf8Json, _reader, new BudgetedBufferWriter(canonical, lease, _maxCanonicalBytes, held), macs.All);
            return SignatureSeal.Seal(canonical, macs, keys, plan, timestamp, count, lease, _logger, _pass);
        }
        catch
        {
            macs.Abandon();
            canonical.Dispose();
            throw;
        }
    }
}
