using System.Diagnostics;
using System.Globalization;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Primitives;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Audit;

/// <summary>
/// Where every audited call ends: a signature's record is made durable in the audit store before the call returns,
/// then every record is logged (event 7001). Records of concurrent calls share one durable write (group commit): each
/// of <see cref="AuditOptions.Writers"/> writers (<see cref="AuditWriter"/>, a chain each) takes whatever has arrived
/// while its previous write was in flight and appends it as one sealed block; each caller waits for its own block, at
/// most <see cref="AuditOptions.WriteTimeout"/>.
/// The format is docs/audit-trail.md's. A singleton in DI.
/// </summary>
internal sealed class AuditTrail : IAsyncDisposable, IDisposable
{
    private readonly AuditLog _log;
    private readonly AuditOptions _options;
    private readonly Lazy<AuditBlobStore> _store;
    private readonly AuditSigningKey _key;
    private readonly TimeProvider _time;
    private readonly SigningMetrics _metrics;
    private readonly ILogger _logger;
    private readonly AuditQueue _pending = new();
    private readonly CancellationTokenSource _stopping = new();
    private readonly object _startLock = new();
    private Task? _writers;

    /// <summary>Creates the trail for this process (named <paramref name="process"/> in every blob it writes).</summary>
    public AuditTrail(AuditLog log, IOptions<AuditOptions> options, Func<AuditBlobStore> store, AuditSigningKey key, TimeProvider time, SigningMetrics metrics, ILogger<AuditTrail> logger, string process)
    {
        ArgumentNullException.ThrowIfNull(options);
        _log = log;
        _metrics = metrics;
        _options = options.Value;
        _store = new Lazy<AuditBlobStore>(store);
        _key = key;
        _time = time;
        _logger = logger;
        Process = process;
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
            await WaitUntilDurableAsync(record).ConfigureAwait(false);
        }

        _log.Write(record);
    }

    // The wait is a span of the caller's trace and a measurement, so an operator sees the store's share of a signature.
    private async Task WaitUntilDurableAsync(AuditRecord record)
    {
        using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.AuditWaitSpan);
        var started = _time.GetTimestamp();
        var pending = new AuditPending(AuditLines.Signed(record, _time.GetUtcNow()), span?.Context ?? Activity.Current?.Context ?? default);
        EnsureStarted();
        try
        {
            if (!_pending.TryAdd(pending))
            {
                throw Problems.AuditUnavailable("The audit store is shutting down.", _options.RetryAfter);
            }

            try
            {
                await pending.Durable.Task.WaitAsync(_options.WriteTimeout, _time).ConfigureAwait(false);
            }
            catch (TimeoutException ex)
            {
                pending.GiveUp();
                throw Problems.AuditUnavailable($"The audit record was not durable within {_options.WriteTimeout.TotalSeconds.ToString(CultureInfo.InvariantCulture)} s; nothing was signed for this request.", _options.RetryAfter, ex);
            }
            catch (Exception ex) when (ex is not ProblemException)
            {
                throw Problems.AuditUnavailable("The audit store could not be written; nothing was signed for this request.", _options.RetryAfter, ex);
            }
        }
        catch (ProblemException)
        {
            span?.SetStatus(ActivityStatusCode.Error, SigningMetrics.ShortName(Problems.Types.AuditUnavailable));
            _metrics.AuditWaited(_time.GetElapsedTime(started), durable: false);
            throw;
        }

        span?.SetTag(WidgetSigningTelemetry.AuditStreamTag, pending.Stream);
        span?.SetTag(WidgetSigningTelemetry.AuditRecordsTag, pending.GroupSize);
        _metrics.AuditWaited(_time.GetElapsedTime(started), durable: true);
    }

    /// <summary>Writes what is pending and a last anchor, best effort, when the host stops.</summary>
    public async ValueTask DisposeAsync()
    {
        if (!_pending.Complete())
        {
            return;
        }

        Task? writers;
        lock (_startLock)
        {
            writers = _writers;
        }

        if (writers is not null)
        {
            _stopping.CancelAfter(TimeSpan.FromSeconds(5));
            await writers.ConfigureAwait(false);
        }

        _stopping.Dispose();
    }

    /// <summary>As <see cref="DisposeAsync"/>, for a container disposed synchronously (the in-process host's).</summary>
    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    private void EnsureStarted()
    {
        if (_writers is not null)
        {
            return;
        }

        lock (_startLock)
        {
            // Several writers, each its own chain, so that several durable writes are in flight at once: a write's
            // latency then bounds each chain's rate, not the process's.
            _writers ??= Task.WhenAll(Enumerable.Range(0, _options.Writers).Select(i =>
            {
                var writer = new AuditWriter(
                    string.Create(CultureInfo.InvariantCulture, $"{Process}-{i}"), _options, () => _store.Value, _key, _time, _logger, _stopping.Token);
                return BackgroundWork.Run(() => writer.RunAsync(_pending));
            }));
        }
    }
}
