namespace WidgetSigning.SpareCores;

/// <summary>Whether a signature may hand work to a second core (<see cref="SpareCoreOptions.Mode"/>).</summary>
internal enum SpareCoreMode
{
    /// <summary>Only for an envelope large enough to repay the hand-off, and only while a core is spare.</summary>
    Adaptive,

    /// <summary>Never: one thread reads, writes and hashes (a plan with one core, or to rule the second core out).</summary>
    Never,
}
