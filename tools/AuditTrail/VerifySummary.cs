using System.Globalization;
using System.Text;

namespace AuditTrail;

/// <summary>What <c>verify</c> checked, for the report (printed whether the chain holds or not).</summary>
internal sealed class VerifySummary
{
    /// <summary>Processes checked.</summary>
    public int Processes { get; set; }

    /// <summary>Streams checked.</summary>
    public int Streams { get; set; }

    /// <summary>Lines of every kind checked.</summary>
    public long Lines { get; set; }

    /// <summary><c>signed</c> records checked.</summary>
    public long Records { get; set; }

    /// <summary>Seals whose signatures verified.</summary>
    public long Seals { get; set; }

    /// <summary>Anchors checked.</summary>
    public int Anchors { get; set; }

    /// <summary>Sealed records written after the seal the next stream links to: written, never acknowledged.</summary>
    public long Unacknowledged { get; set; }

    /// <summary>One line per stretch of unacknowledged lines.</summary>
    public List<string> UnacknowledgedStretches { get; } = [];

    /// <summary>Per process: signed records after its last anchor (not yet anchored).</summary>
    public SortedDictionary<string, long> AfterLastAnchor { get; } = new(StringComparer.Ordinal);

    /// <summary>The summary's lines.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        var c = CultureInfo.InvariantCulture;
        text.AppendLine(c, $"checked: {Processes} processes, {Streams} streams, {Lines} lines, {Records} records, {Seals} seals, {Anchors} anchors");
        text.AppendLine(c, $"unacknowledged records: {Unacknowledged}");
        foreach (var stretch in UnacknowledgedStretches)
        {
            text.Append("  ").AppendLine(stretch);
        }

        text.AppendLine("records after the last anchor:");
        foreach (var (process, count) in AfterLastAnchor)
        {
            text.AppendLine(c, $"  {process}: {count}");
        }

        return text.ToString();
    }
}
