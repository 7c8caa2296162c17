using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Primitives;
using WidgetSigning.Telemetry;

namespace WidgetSigning.SpareCores;

/// <summary>
/// Whether a signature may hand work to a second core now. It counts the signatures in flight in the process (one
/// instance per process: a singleton of <c>AddWidgetSigning</c>); a core is spare while at most one is in flight per
/// <see cref="SpareCoreOptions.CoresPerSignature"/> cores and no work waits in the thread pool. Work already handed over
/// asks <see cref="CoreStillSpare"/> while it waits, and leaves the rest to the caller's thread once the core is wanted.
/// A machine whose two cores hash less than <see cref="SpareCoreOptions.MinimumScaling"/> times as fast as one (measured
/// by <see cref="CoreScalingProbe"/> at start, a low reading confirmed by <see cref="LowReadingsToDecide"/> of them), or that has one processor, has no spare core,
/// until a reading taken every <see cref="SpareCoreOptions.RemeasureInterval"/> meets the minimum.
/// </summary>
internal sealed class SpareCorePolicy
{
    private readonly SpareCoreOptions _options;
    private readonly int _maxInFlight;
    private readonly TimeSpan _remeasureAfter;
    private readonly TimeProvider _time;
    private int _inFlight;

    /// <summary>Readings below the minimum, each after <see cref="RemeasureAfter"/>, before the policy settles on one core.</summary>
    internal const int LowReadingsToDecide = 3;

    /// <summary>The pause between readings: a busy start (the first requests, the JIT) holds a core for seconds.</summary>
    internal static readonly TimeSpan RemeasureAfter = TimeSpan.FromSeconds(15);

    // Two cores are trusted as before the probe existed until the readings say otherwise: a reading taken while other work
    // holds a core is low, never high, so one high reading decides at once and a low one must be confirmed.
    private volatile bool _twoCoresPay = true;

    /// <summary>
    /// Creates the policy from <paramref name="options"/> and starts measuring the machine's two-core scaling on the
    /// thread pool; what the spare core does is counted on <paramref name="metrics"/>' meter, the decision logged once.
    /// </summary>
    public SpareCorePolicy(IOptions<SpareCoreOptions> options, SigningMetrics metrics, ILogger<SpareCorePolicy> logger)
        : this(options, metrics, logger, probe: null, RemeasureAfter)
    {
    }

    /// <summary>Creates the policy with the readings <paramref name="probe"/> gives, one after another (tests feed values).</summary>
    internal SpareCorePolicy(IOptions<SpareCoreOptions> options, SigningMetrics metrics, ILogger logger, CoreScalingProbe probe)
        : this(options, metrics, logger, probe, TimeSpan.Zero)
    {
    }

    /// <summary>
    /// Creates the policy with <paramref name="probe"/>, or the real probe when null, measuring a low reading again after
    /// <paramref name="remeasureAfter"/>; the probe runs only when a second core could be used at all.
    /// </summary>
    internal SpareCorePolicy(IOptions<SpareCoreOptions> options, SigningMetrics metrics, ILogger logger, CoreScalingProbe? probe, TimeSpan remeasureAfter, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(logger);
        _remeasureAfter = remeasureAfter;
        _time = time ?? TimeProvider.System;
        _options = options.Value;
        _maxInFlight = Environment.ProcessorCount / _options.CoresPerSignature;
        Counters = new SpareCoreCounters(metrics);
        ScalingKnown = Decide(probe, logger);
    }

    /// <summary>The mode the policy applies.</summary>
    public SpareCoreMode Mode => _options.Mode;

    /// <summary>Who did the spare core's work, so far.</summary>
    public SpareCoreCounters Counters { get; }

    /// <summary>The machine's two-core scaling once measured (1.0 with one processor; <see cref="double.NaN"/> when not measured because the mode is <c>Never</c>).</summary>
    internal Task<double> ScalingKnown { get; }

    /// <summary>Whether the machine's cores pay for a hand-over, as far as known: true until the probe has answered.</summary>
    internal bool TwoCoresPay => _twoCoresPay;

    /// <summary>A signature starts: it counts as in flight until the returned value is disposed.</summary>
    internal InFlight Enter() => new(this, Interlocked.Increment(ref _inFlight));

    /// <summary>
    /// Whether work already handed to a second core may go on: no other signature has started since. Work queued in the
    /// thread pool is not asked here: a timer's callback queued for a moment would end the overlap for the rest of the envelope.
    /// </summary>
    internal bool CoreStillSpare() => _options.Mode != SpareCoreMode.Never && _twoCoresPay && Volatile.Read(ref _inFlight) <= _maxInFlight;

    /// <summary>How much work waits in the thread pool (a test makes it its own, as other tests' work would otherwise decide).</summary>
    internal Func<long> PendingWork { get; set; } = static () => ThreadPool.PendingWorkItemCount;

    private bool Pays(long bytes, int inFlight) =>
        _options.Mode != SpareCoreMode.Never && _twoCoresPay && bytes >= _options.MinimumBytes && inFlight <= _maxInFlight && PendingWork() == 0;

    private Task<double> Decide(CoreScalingProbe? probe, ILogger logger)
    {
        if (_options.Mode == SpareCoreMode.Never)
        {
            // Nothing is handed over anyway: no need to spend the few ms.
            return Task.FromResult(double.NaN);
        }

        if (Environment.ProcessorCount < 2)
        {
            _twoCoresPay = false;
            Log(logger, 1.0, "one processor, not measured", pays: false);
            return Task.FromResult(1.0);
        }

        // Started by whichever call builds the policy first: its readings and log belong to no caller's trace.
        return BackgroundWork.Start(() => DecideAsync(probe ?? CoreScalingProbe.Real(), logger));
    }

    private bool Pays(double scaling) => _options.MinimumScaling <= 1.0 || scaling >= _options.MinimumScaling;

    private async Task<double> DecideAsync(CoreScalingProbe probe, ILogger logger)
    {
        try
        {
            var best = await probe.MeasureAsync().ConfigureAwait(false);
            for (var low = 1; !Pays(best) && low < LowReadingsToDecide; low++)
            {
                await Task.Delay(_remeasureAfter, _time).ConfigureAwait(false);
                best = Math.Max(best, await probe.MeasureAsync().ConfigureAwait(false));
            }

            var pays = Pays(best);
            _twoCoresPay = pays;
            Log(logger, best, "measured", pays);
            if (!pays)
            {
                _ = RemeasureAsync(probe, logger);
            }

            return best;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // A probe that failed (it should not) leaves the policy as it was: two cores trusted.
            return double.NaN;
        }
    }

    // One core is never final: the start's readings may all have met a busy machine. The policy lives as long as the
    // process (one per process), and so does this loop: ~20 ms of measuring per interval.
    private async Task RemeasureAsync(CoreScalingProbe probe, ILogger logger)
    {
        try
        {
            while (true)
            {
                await Task.Delay(_options.RemeasureInterval, _time).ConfigureAwait(false);
                var reading = await probe.MeasureAsync().ConfigureAwait(false);
                if (Pays(reading))
                {
                    _twoCoresPay = true;
                    Log(logger, reading, "measured again", pays: true);
                    return;
                }
            }
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // A probe that failed (it should not): the policy stays as it is.
        }
    }

    private void Log(ILogger logger, double scaling, string source, bool pays) => SpareCoreLog.ScalingDecided(
        logger,
        Math.Round(scaling, 2),
        source,
        Environment.ProcessorCount,
        pays ? "may hand work to a second core" : "stay on one core",
        SpareCoreOptions.SectionName + ":" + nameof(SpareCoreOptions.MinimumScaling),
        _options.MinimumScaling);

    /// <summary>One signature in flight; dispose it once when the signature no longer needs a core.</summary>
    internal readonly struct InFlight : IDisposable
    {
        private readonly SpareCorePolicy? _policy;
        private readonly int _count;

        internal InFlight(SpareCorePolicy policy, int count)
        {
            _policy = policy;
            _count = count;
        }

        /// <summary>Whether handing <paramref name="bytes"/> of work to a second core pays now, as of this signature's start.</summary>
        public bool SpareCoreFor(long bytes) => _policy is not null && _policy.Pays(bytes, _count);

        /// <inheritdoc />
        public void Dispose()
        {
            if (_policy is not null)
            {
                Interlocked.Decrement(ref _policy._inFlight);
            }
        }
    }
}
