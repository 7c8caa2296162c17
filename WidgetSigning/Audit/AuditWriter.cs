using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using Microsoft.Extensions.Logging;
using WidgetSigning.Keys;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Audit;

/// <summary>
/// One chain of the trail and the loop that extends it: takes whatever records are waiting (up to
/// <see cref="AuditOptions.MaxRecordsPerWrite"/>) the moment it is free, chains them after its last line, seals them with the trail's key
/// and appends them as one block, then acknowledges them; anchors its head every <see cref="AuditOptions.AnchorInterval"/>.
/// Its streams and anchors carry its own process name, so each chain has a single writer (docs/audit-trail.md).
/// </summary>
internal sealed class AuditWriter
{
    // An append blob holds at most 50,000 blocks; a stream rolls well before.
    internal const int MaxBlocksPerStream = 40_000;

    private readonly AuditOptions _options;
    private readonly Func<AuditBlobStore> _store;
    private readonly AuditSigningKey _key;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly CancellationToken _stopping;

    // The chain's state, touched only by this writer's loop.
    private Ed25519Key? _signingKey;
    private string _kid = string.Empty;
    private string? _stream;
    private int _streamHour = -1;
    private long _offset;
    private long _nextSeq;
    private int _blocks;
    private bool _streamCreated;
    private WriteResult? _inDoubt;
    private readonly Dictionary<string, string> _lastNames = new(StringComparer.Ordinal);

    // The block being written, reused from write to write: at most MaxRecordsPerWrite records of under 2 KiB each.
    private readonly ArrayBufferWriter<byte> _block = new(64 * 1024);
    private (string Stream, long Seq, string Hash)? _acknowledged;
    private (string Stream, long Seq, string Hash)? _anchored;
    private string _prevAnchor = AuditLines.Genesis;
    private DateTimeOffset _lastAnchorAt;
    private int _failures;

    /// <summary>A writer of the chain named <paramref name="process"/>.</summary>
    public AuditWriter(string process, AuditOptions options, Func<AuditBlobStore> store, AuditSigningKey key, TimeProvider time, ILogger logger, CancellationToken stopping)
    {
        Process = process;
        _options = options;
        _store = store;
        _key = key;
        _time = time;
        _logger = logger;
        _stopping = stopping;
        _lastAnchorAt = time.GetUtcNow();
    }

    /// <summary>The chain's name in the store: <c>streams/&lt;process&gt;/…</c>, <c>anchors/&lt;process&gt;/…</c>.</summary>
    public string Process { get; }

    /// <summary>Writes what <paramref name="queue"/> gives until it is completed and empty, then anchors its head.</summary>
    public async Task RunAsync(AuditQueue queue)
    {
        var slot = new AuditQueue.Slot();
        var batch = new List<AuditPending>(_options.MaxRecordsPerWrite);
        while (true)
        {
            // A write starts the moment there is something to write; what arrives while it is in flight is the next
            // group (docs/decisions/audit-group-commit.md).
            var idle = queue.TakeOrWait(slot, batch, _options.MaxRecordsPerWrite);
            if (idle is null)
            {
                await WriteAsync(batch).ConfigureAwait(false);
                batch.Clear();
                if (AnchorDueIn() is { } next && next <= TimeSpan.Zero)
                {
                    await AnchorAsync().ConfigureAwait(false);
                }

                continue;
            }

            if (idle.IsCompleted && !idle.Result)
            {
                break;
            }

            if (AnchorDueIn() is { } due)
            {
                if (due > TimeSpan.Zero)
                {
                    using var wake = new CancellationTokenSource();
                    var delay = Task.Delay(due, _time, wake.Token);
                    await Task.WhenAny(idle, delay).ConfigureAwait(false);
                    await wake.CancelAsync().ConfigureAwait(false);
                }

                if (!idle.IsCompleted)
                {
                    await AnchorAsync().ConfigureAwait(false);
                    continue;
                }
            }

            await idle.ConfigureAwait(false);
        }

        // Stopping: the head this process reached is anchored, so a cut after it shows.
        await AnchorAsync().ConfigureAwait(false);
    }

    private TimeSpan? AnchorDueIn() =>
        _acknowledged is null || _acknowledged == _anchored ? null : _lastAnchorAt + _options.AnchorInterval - _time.GetUtcNow();

    private async Task WriteAsync(List<AuditPending> batch)
    {
        // Every call of one write together is bounded: a hung call frees its writer within the bound, so once the store
        // answers again the next write goes through (docs/audit-trail.md).
        using var span = StartWriteSpan(batch);
        using var timeout = new CancellationTokenSource(_options.StoreTimeout, _time);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(_stopping, timeout.Token);
        try
        {
            var token = linked.Token;
            if (_signingKey is null)
            {
                var key = await _key.GetAsync(token).ConfigureAwait(false);
                var kid = AuditSigningKey.KidOf(key.PublicKey);
                await _store().CreateOnceAsync($"keys/{kid}.json", AuditLines.Key(kid, key.PublicKeyText), token).ConfigureAwait(false);
                (_signingKey, _kid) = (key, kid);
                AuditStoreLog.KeyInUse(_logger, _kid, _signingKey.PublicKeyText, Process);
            }

            await SettleInDoubtAsync(token).ConfigureAwait(false);
            var now = _time.GetUtcNow();
            if (_stream is null || (_nextSeq > 0 && (now.UtcDateTime.Hour != _streamHour || _blocks >= MaxBlocksPerStream)))
            {
                (_stream, _streamHour, _streamCreated, _offset, _blocks, _nextSeq) = (NextName("streams", now, ".jsonl"), now.UtcDateTime.Hour, false, 0, 0, 0);
            }

            if (!_streamCreated)
            {
                await _store().CreateStreamAsync(_stream, token).ConfigureAwait(false);
                _streamCreated = true;
                AuditStoreLog.StreamOpened(_logger, _stream, _acknowledged?.Stream ?? "(none)");
            }

            // A stream's first line links it to the last seal this process had acknowledged, in whichever stream.
            var block = _block;
            block.ResetWrittenCount();
            var seq = _nextSeq;
            var prev = _acknowledged?.Hash ?? AuditLines.Genesis;
            if (seq == 0)
            {
                prev = AuditLines.AppendLine(block, 0, prev, AuditLines.Open(_stream, Process, now, _acknowledged?.Stream, _kid));
                seq = 1;
            }

            foreach (var item in batch)
            {
                prev = AuditLines.AppendLine(block, seq++, prev, item.Body);
            }

            var signature = new byte[Ed25519Key.SignatureBytes];
            _signingKey.Sign(AuditLines.SealMessage(_stream, seq, prev), signature);
            var sealHash = AuditLines.AppendLine(block, seq, prev, AuditLines.Seal(now, _kid, signature));
            var after = new WriteResult(_offset + block.WrittenCount, seq + 1, (_stream, seq, sealHash));
            try
            {
                await _store().AppendAsync(_stream, block.WrittenMemory, _offset, token).ConfigureAwait(false);
            }
            catch
            {
                // Whether it landed is unknown until the blob's length is read again (the next write does so first).
                _inDoubt = after;
                throw;
            }

            Apply(after);
            if (_failures > 0)
            {
                AuditStoreLog.StoreRecovered(_logger, _failures);
                _failures = 0;
            }

            span?.SetTag(WidgetSigningTelemetry.AuditStreamTag, _stream);
            span?.Dispose();
            AuditPending.AcknowledgeAll(batch, _stream);
        }
        catch (Exception ex)
        {
            if (timeout.IsCancellationRequested && !_stopping.IsCancellationRequested)
            {
                ex = new TimeoutException($"The audit store did not answer within {_options.StoreTimeout.TotalSeconds.ToString(CultureInfo.InvariantCulture)} s ({AuditOptions.StoreTimeoutSetting}).", ex);
            }

            span?.SetStatus(ActivityStatusCode.Error, ex.GetType().Name);
            if (_failures++ == 0)
            {
                AuditStoreLog.StoreFailed(_logger, _stream ?? "(none)", ex.GetType().Name, ex.Message);
            }

            span?.Dispose();
            AuditPending.FailAll(batch, ex);
        }
    }

    // The writer runs detached (BackgroundWork), so this is the root of a trace of its own: one write serves several
    // requests, so it links to each one's wait instead of sitting in one of their traces.
    private static Activity? StartWriteSpan(List<AuditPending> batch)
    {
        if (!WidgetSigningTelemetry.Source.HasListeners())
        {
            return null;
        }

        var links = new List<ActivityLink>(batch.Count);
        foreach (var item in batch)
        {
            if (item.Waiter != default)
            {
                links.Add(new ActivityLink(item.Waiter));
            }
        }

        var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.AuditAppendSpan, ActivityKind.Internal, parentContext: default, links: links);
        span?.SetTag(WidgetSigningTelemetry.AuditRecordsTag, batch.Count);
        return span;
    }

    // A write whose answer was lost may have landed: the blob's length says. If it did, its records are in the chain
    // (their callers were answered 503: records without an answer, docs/audit-trail.md); if not, the stream goes on.
    private async Task SettleInDoubtAsync(CancellationToken cancellationToken)
    {
        if (_inDoubt is not { } write || _stream is null)
        {
            return;
        }

        var length = await _store().LengthAsync(_stream, cancellationToken).ConfigureAwait(false);
        _inDoubt = null;
        if (length == write.Offset)
        {
            Apply(write);
        }
        else if (length != _offset)
        {
            // Not ours: something else appended. A new stream, linked to the last seal this process knows.
            _stream = null;
            throw new InvalidOperationException($"Audit stream was {length} bytes long, neither {_offset} nor {write.Offset}: another writer appended to it.");
        }
    }

    private void Apply(WriteResult write)
    {
        _offset = write.Offset;
        _nextSeq = write.NextSeq;
        _acknowledged = write.Seal;
        _blocks++;
    }

    private async Task AnchorAsync()
    {
        if (_acknowledged is not { } head || head == _anchored ||  _signingKey is null)
        {
            return;
        }

        var now = _time.GetUtcNow();
        var key = _signingKey;
        using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.AuditAnchorSpan, ActivityKind.Internal, parentContext: default);
        using var timeout = new CancellationTokenSource(_options.StoreTimeout, _time);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(_stopping, timeout.Token);
        try
        {
            var name = NextName("anchors", now, ".json");
            var anchor = AuditLines.Anchor(name, Process, now, _prevAnchor, head.Stream, head.Seq, head.Hash, _kid, message =>
            {
                var signature = new byte[Ed25519Key.SignatureBytes];
                key.Sign(message, signature);
                return signature;
            });
            if (await _store().CreateOnceAsync(name, anchor, linked.Token).ConfigureAwait(false))
            {
                _prevAnchor = AuditLines.Hash(anchor);
                _anchored = head;
                AuditStoreLog.Anchored(_logger, name, head.Stream, head.Seq);
            }
        }
        catch (Exception ex)
        {
            // Tried again at the next interval; the chain still links every record meanwhile.
            span?.SetStatus(ActivityStatusCode.Error, ex.GetType().Name);
            AuditStoreLog.AnchorFailed(_logger, ex.GetType().Name, ex.Message);
        }

        _lastAnchorAt = now;
    }

    // Names sort in time order within a process; two in one millisecond move the second on by one.
    private string NextName(string folder, DateTimeOffset now, string extension)
    {
        var stamp = now.UtcDateTime;
        _lastNames.TryGetValue(folder, out var last);
        string name;
        do
        {
            name = $"{folder}/{Process}/{stamp.ToString("yyyyMMdd'T'HHmmssfff", CultureInfo.InvariantCulture)}Z{extension}";
            stamp = stamp.AddMilliseconds(1);
        }
        while (last is not null && string.CompareOrdinal(name, last) <= 0);

        _lastNames[folder] = name;
        return name;
    }

    private sealed record WriteResult(long Offset, long NextSeq, (string Stream, long Seq, string Hash) Seal);
}
