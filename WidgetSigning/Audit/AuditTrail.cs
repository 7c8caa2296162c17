using System.Globalization;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace WidgetSigning.Audit;

/// <summary>
/// Where every audited call ends: a signature's record is made durable in the audit store before the call returns,
/// then every record is logged (event 7001). Records of concurrent calls share one durable write (group commit): one
/// writer takes whatever has arrived while the previous write was in flight, chains it, seals it with the trail's
/// key and appends it as one block; each caller waits for its own block, at most <see cref="AuditOptions.WriteTimeout"/>.
/// The format is docs/audit-trail.md's. A singleton in DI.
/// </summary>
internal sealed class AuditTrail : IAsyncDisposable, IDisposable
{
    // An append blob holds at most 50,000 blocks; a stream rolls well before.
    internal const int MaxBlocksPerStream = 40_000;

    private readonly AuditLog _log;
    private readonly AuditOptions _options;
    private readonly Func<AuditBlobStore> _storeFactory;
    private readonly AuditSigningKey _key;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly Channel<Pending> _pending = Channel.CreateUnbounded<Pending>(new UnboundedChannelOptions { SingleReader = true });
    private readonly CancellationTokenSource _stopping = new();
    private readonly object _startLock = new();
    private Task? _loop;

    // The writer's state, touched only by the loop.
    private AuditBlobStore? _store;
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
    private (string Stream, long Seq, string Hash)? _acknowledged;
    private (string Stream, long Seq, string Hash)? _anchored;
    private string _prevAnchor = AuditLines.Genesis;
    private DateTimeOffset _lastAnchorAt;
    private int _failures;

    /// <summary>Creates the trail for this process (named <paramref name="process"/> in every blob it writes).</summary>
    public AuditTrail(AuditLog log, IOptions<AuditOptions> options, Func<AuditBlobStore> store, AuditSigningKey key, TimeProvider time, ILogger<AuditTrail> logger, string process)
    {
        ArgumentNullException.ThrowIfNull(options);
        _log = log;
        _options = options.Value;
        _storeFactory = store;
        _key = key;
        _time = time;
        _logger = logger;
        Process = process;
        _lastAnchorAt = time.GetUtcNow();
        if (_options.Disabled)
        {
            AuditStoreLog.StoreDisabled(_logger);
        }
    }

    /// <summary>This process's name in the store: <c>streams/&lt;process&gt;/…</c>, <c>anchors/&lt;process&gt;/…</c>.</summary>
    public string Process { get; }

    /// <summary>
    /// Records <paramref name="record"/>: a signature's durably first (unless the store is off), then in the log.
    /// </summary>
    /// <exception cref="ProblemException">503 <c>audit-unavailable</c>: the record could not be made durable in time; nothing may be answered with the signature.</exception>
    public async Task RecordAsync(AuditRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        if (record.Outcome == AuditOutcome.Signed && !_options.Disabled)
        {
            var pending = new Pending(AuditLines.Signed(record, _time.GetUtcNow()));
            EnsureStarted();
            if (!_pending.Writer.TryWrite(pending))
            {
                throw Problems.AuditUnavailable("The audit store is shutting down.", _options.RetryAfter);
            }

            try
            {
                await pending.Durable.Task.WaitAsync(_options.WriteTimeout, _time).ConfigureAwait(false);
            }
            catch (TimeoutException ex)
            {
                throw Problems.AuditUnavailable($"The audit record was not durable within {_options.WriteTimeout.TotalSeconds.ToString(CultureInfo.InvariantCulture)} s; nothing was signed for this request.", _options.RetryAfter, ex);
            }
            catch (Exception ex) when (ex is not ProblemException)
            {
                throw Problems.AuditUnavailable("The audit store could not be written; nothing was signed for this request.", _options.RetryAfter, ex);
            }
        }

        _log.Write(record);
    }

    /// <summary>Writes what is pending and a last anchor, best effort, when the host stops.</summary>
    public async ValueTask DisposeAsync()
    {
        if (!_pending.Writer.TryComplete())
        {
            return;
        }

        Task? loop;
        lock (_startLock)
        {
            loop = _loop;
        }

        if (loop is not null)
        {
            _stopping.CancelAfter(TimeSpan.FromSeconds(5));
            await loop.ConfigureAwait(false);
        }

        _stopping.Dispose();
    }

    /// <summary>As <see cref="DisposeAsync"/>, for a container disposed synchronously (the in-process host's).</summary>
    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    private void EnsureStarted()
    {
        if (_loop is not null)
        {
            return;
        }

        lock (_startLock)
        {
            _loop ??= Task.Run(RunAsync);
        }
    }

    private async Task RunAsync()
    {
        var reader = _pending.Reader;
        var batch = new List<Pending>(_options.MaxRecordsPerWrite);
        Task<bool>? waiting = null;
        while (true)
        {
            waiting ??= reader.WaitToReadAsync(CancellationToken.None).AsTask();
            var anchorIn = AnchorDueIn();
            if (!waiting.IsCompleted && anchorIn is { } due)
            {
                if (due > TimeSpan.Zero)
                {
                    using var wake = new CancellationTokenSource();
                    var delay = Task.Delay(due, _time, wake.Token);
                    await Task.WhenAny(waiting, delay).ConfigureAwait(false);
                    await wake.CancelAsync().ConfigureAwait(false);
                }

                if (!waiting.IsCompleted)
                {
                    await AnchorAsync().ConfigureAwait(false);
                    continue;
                }
            }

            if (!await waiting.ConfigureAwait(false))
            {
                break;
            }

            waiting = null;
            while (batch.Count < _options.MaxRecordsPerWrite && reader.TryRead(out var item))
            {
                batch.Add(item);
            }

            await WriteAsync(batch).ConfigureAwait(false);
            batch.Clear();
            if (AnchorDueIn() is { } next && next <= TimeSpan.Zero)
            {
                await AnchorAsync().ConfigureAwait(false);
            }
        }

        // Stopping: the head this process reached is anchored, so a cut after it shows.
        await AnchorAsync().ConfigureAwait(false);
    }

    private TimeSpan? AnchorDueIn() =>
        _acknowledged is null || _acknowledged == _anchored ? null : _lastAnchorAt + _options.AnchorInterval - _time.GetUtcNow();

    private async Task WriteAsync(List<Pending> batch)
    {
        try
        {
            var token = _stopping.Token;
            _store ??= _storeFactory();
            if (_signingKey is null)
            {
                var key = await _key.GetAsync(token).ConfigureAwait(false);
                var kid = AuditSigningKey.KidOf(key.PublicKey);
                await _store.CreateOnceAsync($"keys/{kid}.json", AuditLines.Key(kid, key.PublicKeyText), token).ConfigureAwait(false);
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
                await _store.CreateStreamAsync(_stream, token).ConfigureAwait(false);
                _streamCreated = true;
                AuditStoreLog.StreamOpened(_logger, _stream, _acknowledged?.Stream ?? "(none)");
            }

            // A stream's first line links it to the last seal this process had acknowledged, in whichever stream.
            var lines = new List<byte[]>(batch.Count + 2);
            var seq = _nextSeq;
            var prev = _acknowledged?.Hash ?? AuditLines.Genesis;
            if (seq == 0)
            {
                lines.Add(AuditLines.Line(0, prev, AuditLines.Open(_stream, Process, now, _acknowledged?.Stream, _kid)));
                prev = AuditLines.Hash(lines[0]);
                seq = 1;
            }

            foreach (var item in batch)
            {
                var line = AuditLines.Line(seq++, prev, item.Body);
                prev = AuditLines.Hash(line);
                lines.Add(line);
            }

            var signature = new byte[Ed25519Key.SignatureBytes];
            _signingKey.Sign(AuditLines.SealMessage(_stream, seq, prev), signature);
            var seal = AuditLines.Line(seq, prev, AuditLines.Seal(now, _kid, signature));
            lines.Add(seal);
            var block = Join(lines);
            var after = new WriteResult(_offset + block.Length, seq + 1, (_stream, seq, AuditLines.Hash(seal)));
            try
            {
                await _store.AppendAsync(_stream, block, _offset, token).ConfigureAwait(false);
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

            foreach (var item in batch)
            {
                item.Durable.TrySetResult();
            }
        }
        catch (Exception ex)
        {
            if (_failures++ == 0)
            {
                AuditStoreLog.StoreFailed(_logger, _stream ?? "(none)", ex.GetType().Name, ex.Message);
            }

            foreach (var item in batch)
            {
                item.Durable.TrySetException(ex);
            }
        }
    }

    // A write whose answer was lost may have landed: the blob's length says. If it did, its records are in the chain
    // (their callers were answered 503: records without an answer, docs/audit-trail.md); if not, the stream goes on.
    private async Task SettleInDoubtAsync(CancellationToken cancellationToken)
    {
        if (_inDoubt is not { } write || _stream is null)
        {
            return;
        }

        var length = await _store!.LengthAsync(_stream, cancellationToken).ConfigureAwait(false);
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
        if (_acknowledged is not { } head || head == _anchored || _store is null || _signingKey is null)
        {
            return;
        }

        var now = _time.GetUtcNow();
        var key = _signingKey;
        try
        {
            var name = NextName("anchors", now, ".json");
            var anchor = AuditLines.Anchor(name, Process, now, _prevAnchor, head.Stream, head.Seq, head.Hash, _kid, message =>
            {
                var signature = new byte[Ed25519Key.SignatureBytes];
                key.Sign(message, signature);
                return signature;
            });
            if (await _store.CreateOnceAsync(name, anchor, _stopping.Token).ConfigureAwait(false))
            {
                _prevAnchor = AuditLines.Hash(anchor);
                _anchored = head;
                AuditStoreLog.Anchored(_logger, name, head.Stream, head.Seq);
            }
        }
        catch (Exception ex)
        {
            // Tried again at the next interval; the chain still links every record meanwhile.
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

    private static byte[] Join(List<byte[]> lines)
    {
        var length = 0;
        foreach (var line in lines)
        {
            length += line.Length + 1;
        }

        var block = new byte[length];
        var at = 0;
        foreach (var line in lines)
        {
            line.CopyTo(block, at);
            at += line.Length;
            block[at++] = (byte)'\n';
        }

        return block;
    }

    private sealed record WriteResult(long Offset, long NextSeq, (string Stream, long Seq, string Hash) Seal);

    private sealed class Pending(byte[] body)
    {
        public byte[] Body { get; } = body;

        public TaskCompletionSource Durable { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}
