using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.SpareCores;

/// <summary>
/// When a signature hands work to a second core (configuration section <c>SpareCores</c>): writing and hashing behind the
/// reader, the reader's byte scan ahead of it, and the hashing of an envelope signed in memory. See
/// <see cref="SpareCorePolicy"/> and docs/architecture.md.
/// </summary>
internal sealed class SpareCoreOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "SpareCores";

    /// <summary>The default of <see cref="MinimumBytes"/>: 256 KiB.</summary>
    public const long DefaultMinimumBytes = 256 * 1024;

    /// <summary>The default of <see cref="CoresPerSignature"/>.</summary>
    public const int DefaultCoresPerSignature = 2;

    /// <summary>The default of <see cref="MinimumScaling"/>.</summary>
    public const double DefaultMinimumScaling = 1.4;

    /// <summary>The default of <see cref="RemeasureInterval"/>: 5 minutes.</summary>
    public static readonly TimeSpan DefaultRemeasureInterval = TimeSpan.FromMinutes(5);

    /// <summary>Whether work may go to a second core at all. Setting: <c>SpareCores:Mode</c> (<c>Adaptive</c>, <c>Never</c>). Default <c>Adaptive</c>.</summary>
    public SpareCoreMode Mode { get; set; } = SpareCoreMode.Adaptive;

    /// <summary>
    /// The smallest body (or canonical estimate) handed to a second core: a thread-pool wake-up costs tens of µs, and a
    /// 256 KiB envelope takes ~250 µs to sign, so smaller ones gain nothing. Setting: <c>SpareCores:MinimumBytes</c>.
    /// Default 256 KiB. 0 … 1 GiB.
    /// </summary>
    [Range(0L, 1024L * 1024 * 1024, ErrorMessage = SectionName + ":" + nameof(MinimumBytes) + " must be between {1} and {2} bytes.")]
    public long MinimumBytes { get; set; } = DefaultMinimumBytes;

    /// <summary>
    /// Cores per signature in flight: a core counts as spare while at most one read-and-sign is in flight per this many
    /// cores of the process (and no work waits in the thread pool), so under load, when every core is busy, nothing is
    /// handed over. Setting: <c>SpareCores:CoresPerSignature</c>. Default 2. 1 … 64.
    /// </summary>
    [Range(1, 64, ErrorMessage = SectionName + ":" + nameof(CoresPerSignature) + " must be between {1} and {2}.")]
    public int CoresPerSignature { get; set; } = DefaultCoresPerSignature;

    /// <summary>
    /// The least two-core hashing scaling (two threads' hashing rate over one's, measured at start by
    /// <see cref="CoreScalingProbe"/>, a low reading confirmed by later ones, and again every <see cref="RemeasureInterval"/> while low) at which a second core is used: below it (SMT siblings, a CPU quota) the hand-over
    /// costs more than the second core gives, and every signature takes the one-core path. 1.0 trusts two cores without
    /// measuring. Setting: <c>SpareCores:MinimumScaling</c>. Default 1.4. 1.0 … 2.0.
    /// </summary>
    [Range(1.0, 2.0, ErrorMessage = SectionName + ":" + nameof(MinimumScaling) + " must be between {1} and {2}.")]
    public double MinimumScaling { get; set; } = DefaultMinimumScaling;

    /// <summary>
    /// How often a machine that measured below <see cref="MinimumScaling"/> is measured again: a reading taken while
    /// other work held a core (a burst of requests at start) is low, never high, so one core is never final, and the
    /// first reading at or above the minimum lets signatures use two cores from then on. Setting:
    /// <c>SpareCores:RemeasureInterval</c>. Default 5 minutes. 00:00:30 … 1.00:00:00.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:30", "1.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = SectionName + ":" + nameof(RemeasureInterval) + " must be between {1} and {2}.")]
    public TimeSpan RemeasureInterval { get; set; } = DefaultRemeasureInterval;
}
