using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using WidgetSigning.Primitives;

namespace WidgetSigning.Telemetry;

/// <summary>
/// The service's instruments on the <c>WidgetSigning</c> meter (docs/operations.md lists them). Every tag value is
/// bounded: sources, forms, outcomes and problem types are fixed lists, and receiver ids are passed only once checked
/// against what the deployment knows, and at most <see cref="MaxReceiverValues"/> distinct ones are kept (later ones are
/// reported as <c>(other)</c>). No envelope content or key material is ever a tag. Recorded whatever the trace sampling.
/// </summary>
internal sealed class SigningMetrics
{
    /// <summary>Distinct receiver tag values kept per process; a deployment with more sees the rest as <c>(other)</c>.</summary>
    public const int MaxReceiverValues = 1000;

    /// <summary>Counter: signatures made, and signing operations refused or failed.</summary>
    public const string SignaturesInstrument = "widgetsigning.signatures";

    /// <summary>Counter: envelope bytes signed.</summary>
    public const string SignedBytesInstrument = "widgetsigning.signed_bytes";

    /// <summary>Histogram (s): a signing operation's duration.</summary>
    public const string SignDurationInstrument = "widgetsigning.sign.duration";

    /// <summary>Counter: refusals, by problem type.</summary>
    public const string RefusalsInstrument = "widgetsigning.refusals";

    /// <summary>Histogram (s): a queue message's age when its run starts.</summary>
    public const string MessageAgeInstrument = "widgetsigning.queue.message_age";

    /// <summary>Histogram: a queue message's dequeue count when its run starts.</summary>
    public const string DequeueCountInstrument = "widgetsigning.queue.dequeue_count";

    /// <summary>Counter: queue messages whose last attempt failed.</summary>
    public const string PoisonInstrument = "widgetsigning.queue.poison";

    /// <summary>Counter: Key Vault secret refreshes, by outcome.</summary>
    public const string KeyVaultRefreshesInstrument = "widgetsigning.keyvault.refreshes";

    /// <summary>Histogram (s): a signature's wait for its audit record to be durable, by outcome (<c>durable</c>, <c>unavailable</c>).</summary>
    public const string AuditWaitInstrument = "widgetsigning.audit.wait.duration";

    /// <summary>Gauge (s): seconds until each cached key's exp.</summary>
    public const string KeyExpiryInstrument = "widgetsigning.key.seconds_to_expiry";

    // In seconds: OpenTelemetry's default boundaries (0 to 10,000) suit milliseconds, not these.
    private static readonly double[] DurationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
    private static readonly double[] AgeBuckets = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

    private const string OtherReceiver = "(other)";
    private const string ProblemPrefix = Problems.Types.Prefix;

    private readonly Meter _meter;
    private readonly Counter<long> _signatures;
    private readonly Counter<long> _signedBytes;
    private readonly Histogram<double> _duration;
    private readonly Counter<long> _refusals;
    private readonly Histogram<double> _messageAge;
    private readonly Histogram<long> _dequeueCount;
    private readonly Counter<long> _poison;
    private readonly Counter<long> _refreshes;
    private readonly Histogram<double> _auditWait;
    private readonly ConcurrentDictionary<string, string> _receivers = new(StringComparer.Ordinal);
    private readonly ConcurrentBag<Func<IEnumerable<KeyExpiryReading>>> _keySources = [];

    /// <summary>Creates the instruments on the <c>WidgetSigning</c> meter from <paramref name="meterFactory"/> (DI's).</summary>
    public SigningMetrics(IMeterFactory meterFactory)
    {
        ArgumentNullException.ThrowIfNull(meterFactory);
        _meter = meterFactory.Create(WidgetSigningTelemetry.Name);
        _signatures = _meter.CreateCounter<long>(SignaturesInstrument, "{signature}", "Signatures made, one per receiver per envelope, and signing operations refused or failed.");
        _signedBytes = _meter.CreateCounter<long>(SignedBytesInstrument, "By", "Envelope bytes signed (the canonical form's length).");
        _duration = CreateSecondsHistogram(SignDurationInstrument, "Time from the caller's checks to the signatures, or to the refusal.", DurationBuckets);
        _refusals = _meter.CreateCounter<long>(RefusalsInstrument, "{refusal}", "Requests answered with a problem and queue messages rejected, by problem type.");
        _messageAge = CreateSecondsHistogram(MessageAgeInstrument, "A queue message's age when its run starts (now - insertion time).", AgeBuckets);
        _dequeueCount = _meter.CreateHistogram<long>(DequeueCountInstrument, "{dequeue}", "How many times a queue message had been handed out when its run started.");
        _poison = _meter.CreateCounter<long>(PoisonInstrument, "{message}", "Queue messages whose last attempt failed: the host moves them to the poison queue.");
        _refreshes = _meter.CreateCounter<long>(KeyVaultRefreshesInstrument, "{refresh}", "Refreshes of a Key Vault secret's versions, by outcome.");
        _auditWait = CreateSecondsHistogram(AuditWaitInstrument, "A signature's wait for its audit record to be durable in the store, or until it was answered 503.", DurationBuckets);
        _meter.CreateObservableGauge(KeyExpiryInstrument, ObserveKeyExpiry, "s", "Seconds until each cached key's exp (Key Vault keys with an exp only).");
    }

    /// <summary>Publishes a counter read when observed (<paramref name="read"/> must be cheap and thread-safe) on this meter.</summary>
    public void ObserveCounter(string name, Func<long> read, string unit, string description) =>
        _meter.CreateObservableCounter(name, read, unit, description);

    /// <summary>Records one envelope signed for <paramref name="receivers"/> (each known: it has a key).</summary>
    public void Signed(string source, string form, IEnumerable<string> receivers, long canonicalBytes, TimeSpan elapsed)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        foreach (var receiver in receivers)
        {
            _signatures.Add(1, new TagList
            {
                { WidgetSigningTelemetry.SourceTag, source },
                { WidgetSigningTelemetry.ReceiverTag, Bounded(receiver) },
                { WidgetSigningTelemetry.FormTag, form },
                { WidgetSigningTelemetry.OutcomeTag, "signed" },
            });
        }

        _signedBytes.Add(canonicalBytes, new KeyValuePair<string, object?>(WidgetSigningTelemetry.SourceTag, source));
        RecordDuration(source, SignOutcome.Signed, elapsed);
    }

    /// <summary>
    /// Records a signing operation that ended without signatures (its refusal is counted by <see cref="Refused"/>); the
    /// receiver is tagged <c>(unknown)</c>, as a client could name any. <see cref="SignOutcome.Failed"/> for the service's
    /// own failures.
    /// </summary>
    public void NotSigned(string source, string form, SignOutcome outcome, TimeSpan elapsed)
    {
        _signatures.Add(1, new TagList
        {
            { WidgetSigningTelemetry.SourceTag, source },
            { WidgetSigningTelemetry.ReceiverTag, WidgetSigningTelemetry.UnknownReceiver },
            { WidgetSigningTelemetry.FormTag, form },
            { WidgetSigningTelemetry.OutcomeTag, OutcomeName(outcome) },
        });
        RecordDuration(source, outcome, elapsed);
    }

    /// <summary>Records a request answered with <paramref name="problemType"/> (any endpoint), or a queue message rejected.</summary>
    public void Refused(string source, string problemType) =>
        _refusals.Add(1, new KeyValuePair<string, object?>(WidgetSigningTelemetry.SourceTag, source), new KeyValuePair<string, object?>(WidgetSigningTelemetry.ProblemTypeTag, ShortName(problemType)));

    /// <summary>Records a queue message's age and dequeue count as its run starts.</summary>
    public void QueueMessageStarted(TimeSpan? age, int dequeueCount)
    {
        if (age is { } value)
        {
            _messageAge.Record(Math.Max(0, value.TotalSeconds));
        }

        _dequeueCount.Record(dequeueCount);
    }

    /// <summary>Records a queue message whose last attempt failed (the host poisons it).</summary>
    public void Poisoned() => _poison.Add(1);

    /// <summary>Records one refresh of a Key Vault secret.</summary>
    public void KeyVaultRefreshed(bool success) =>
        _refreshes.Add(1, new KeyValuePair<string, object?>(WidgetSigningTelemetry.OutcomeTag, success ? "success" : "failure"));

    /// <summary>Records how long a signature waited for its audit record: until durable, or until refused (503).</summary>
    public void AuditWaited(TimeSpan elapsed, bool durable) =>
        _auditWait.Record(elapsed.TotalSeconds, new KeyValuePair<string, object?>(WidgetSigningTelemetry.OutcomeTag, durable ? "durable" : "unavailable"));

    /// <summary>Adds a source of cached keys' expiry readings to the <c>widgetsigning.key.seconds_to_expiry</c> gauge.</summary>
    public void ObserveKeys(Func<IEnumerable<KeyExpiryReading>> readings)
    {
        ArgumentNullException.ThrowIfNull(readings);
        _keySources.Add(readings);
    }

    /// <summary>The short name of a problem type URI (<c>invalid-envelope</c>); <c>other</c> for anything not ours.</summary>
    public static string ShortName(string? problemType)
    {
        if (problemType is null || !problemType.StartsWith(ProblemPrefix, StringComparison.Ordinal) || problemType.Length > ProblemPrefix.Length + 40)
        {
            return "other";
        }

        return problemType[ProblemPrefix.Length..];
    }

    private Histogram<double> CreateSecondsHistogram(string name, string description, double[] buckets)
    {
#if NET9_0_OR_GREATER
        return _meter.CreateHistogram(name, "s", description, tags: null, advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = buckets });
#else
        _ = buckets;
        return _meter.CreateHistogram<double>(name, "s", description);
#endif
    }

    private static string OutcomeName(SignOutcome outcome) => outcome switch
    {
        SignOutcome.Signed => "signed",
        SignOutcome.Refused => "refused",
        _ => "failed",
    };

    private void RecordDuration(string source, SignOutcome outcome, TimeSpan elapsed) =>
        _duration.Record(elapsed.TotalSeconds, new KeyValuePair<string, object?>(WidgetSigningTelemetry.SourceTag, source), new KeyValuePair<string, object?>(WidgetSigningTelemetry.OutcomeTag, OutcomeName(outcome)));

    private string Bounded(string receiver)
    {
        if (_receivers.TryGetValue(receiver, out var kept))
        {
            return kept;
        }

        // Racing adds may overshoot the bound by a few; the bound is about cardinality, not an exact count.
        return _receivers.Count < MaxReceiverValues ? _receivers.GetOrAdd(receiver, receiver) : OtherReceiver;
    }

    private IEnumerable<Measurement<double>> ObserveKeyExpiry()
    {
        foreach (var source in _keySources)
        {
            foreach (var reading in source())
            {
                yield return new Measurement<double>(reading.SecondsToExpiry, new KeyValuePair<string, object?>(WidgetSigningTelemetry.ReceiverTag, Bounded(reading.Receiver)), new KeyValuePair<string, object?>(WidgetSigningTelemetry.KeyStateTag, reading.State));
            }
        }
    }
}
