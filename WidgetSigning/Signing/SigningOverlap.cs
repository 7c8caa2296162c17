namespace WidgetSigning.Signing;

/// <summary>When <see cref="EnvelopeSigner"/> hands work to a second core. Production is <see cref="Adaptive"/>; the others are for tests and benchmark rows.</summary>
internal enum SigningOverlap
{
    /// <summary>Only for an envelope large enough to repay the hand-off, and only while a core is spare.</summary>
    Adaptive,

    /// <summary>Never: one thread writes and hashes, after reading.</summary>
    Never,

    /// <summary>Always, whatever the size and the load (tests, and the benchmarks' "always" rows).</summary>
    Always,
}
