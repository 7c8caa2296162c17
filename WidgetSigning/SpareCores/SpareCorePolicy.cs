using Microsoft.Extensions.Options;
using WidgetSigning.Telemetry;

namespace WidgetSigning.SpareCores;

/// <summary>
/// Whether a signature may hand work to a second core now. It counts the signatures in flight in the process (one
/// instance per process: a singleton of <c>AddWidgetSigning</c>); a core is spare while at most one is in flight per
/// <see cref="SpareCoreOptions.CoresPerSignature"/> cores and no work waits in the thread pool. Work already handed over
/// asks <see cref="CoreStillSpare"/> while it waits, and leaves the rest to the caller's thread once the core is wanted.
/// </summary>
internal sealed class SpareCorePolicy
{
    private readonly SpareCoreOptions _options;
    private readonly int _maxInFlight;
    private int _inFlight;

    /// <summary>Creates the policy from <paramref name="options"/>; what the spare core does is counted on <paramref name="metrics"/>' meter.</summary>
    public SpareCorePolicy(IOptions<SpareCoreOptions> options, SigningMetrics metrics)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options.Value;
        _maxInFlight = Environment.ProcessorCount / _options.CoresPerSignature;
        Counters = new SpareCoreCounters(metrics);
    }

    /// <summary>The mode the policy applies.</summary>
    public SpareCoreMode Mode => _options.Mode;

    /// <summary>Who did the spare core's work, so far.</summary>
    public SpareCoreCounters Counters { get; }

    /// <summary>A signature starts: it counts as in flight until the returned value is disposed.</summary>
    internal InFlight Enter() => new(this, Interlocked.Increment(ref _inFlight));

    /// <summary>
    /// Whether work already handed to a second core may go on: no other signature has started since. Work queued in the
    /// thread pool is not asked here: a timer's callback queued for a moment would end the overlap for the rest of the envelope.
    /// </summary>
    internal bool CoreStillSpare() => _options.Mode != SpareCoreMode.Never && Volatile.Read(ref _inFlight) <= _maxInFlight;

    private bool Pays(long bytes, int inFlight) =>
        _options.Mode != SpareCoreMode.Never && bytes >= _options.MinimumBytes && inFlight <= _maxInFlight && ThreadPool.PendingWorkItemCount == 0;

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
