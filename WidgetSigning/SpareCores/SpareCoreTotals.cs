namespace WidgetSigning.SpareCores;

/// <summary>What <see cref="SpareCoreCounters"/> had counted at one moment; subtract two to get what happened between.</summary>
internal readonly record struct SpareCoreTotals(long HelperRuns, long ReaderRuns, long HelperSleeps, long HelperChunks, long ReaderChunks, long SharedHashings = 0, long HelperHashChunks = 0)
{
    /// <summary>The helper's share of the runs written behind the reader (0 when there were none).</summary>
    public double HelperShare => HelperRuns + ReaderRuns == 0 ? 0 : (double)HelperRuns / (HelperRuns + ReaderRuns);

    /// <summary>What was counted between two snapshots.</summary>
    public static SpareCoreTotals operator -(SpareCoreTotals after, SpareCoreTotals before) => new(
        after.HelperRuns - before.HelperRuns,
        after.ReaderRuns - before.ReaderRuns,
        after.HelperSleeps - before.HelperSleeps,
        after.HelperChunks - before.HelperChunks,
        after.ReaderChunks - before.ReaderChunks,
        after.SharedHashings - before.SharedHashings,
        after.HelperHashChunks - before.HelperHashChunks);

    /// <summary>What was counted between two snapshots.</summary>
    public static SpareCoreTotals Subtract(SpareCoreTotals after, SpareCoreTotals before) => after - before;
}
