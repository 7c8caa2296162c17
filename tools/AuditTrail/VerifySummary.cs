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

    /// <summary>Empty last streams (a process that stopped between creating a stream and its first write).</summary>
    public List<string> EmptyStreams { get; } = [];

    /// <summary>Processes whose only blob is one empty stream: nothing signed vouches for them.</summary>
    public int ProcessesWithOnlyAnEmptyStream { get; set; }

    /// <summary>Per process: signed records after its last anchor (not yet anchored).</summary>
    public SortedDictionary<string, long> AfterLastAnchor { get; } = new(StringComparer.Ordinal);

    /// <summary>The summary's lines.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        var c = CultureInfo.InvariantCulture;
        if (ProcessesWithOnlyAnEmptyStream > 0)
        {
            text.AppendLine(c, $"NOTE {ProcessesWithOnlyAnEmptyStream} process(es) hold nothing but one empty stream: a writer that stopped before its first write, or blobs anyone who can write the container can add; compare them with the instances that ran");
        }

        text.AppendLine(c, $"checked: {Processes} processes, {Streams} streams, {Lines} lines, {Records} records, {Seals} seals, {Anchors} anchors");
        text.AppendLine(c, $"unacknowledged records: {Unacknowledged}");
        foreach (var stretch in UnacknowledgedStretches)
        {
            text.Append("  ").AppendLine(stretch);
        }

        text.AppendLine(c, $"empty streams: {EmptyStreams.Count}");
        foreach (var stream in EmptyStreams.Take(20))
        {
            text.Append("  ").AppendLine(c, $"stream {stream}: empty (opened, nothing written before the process stopped)");
        }

        if (EmptyStreams.Count > 20)
        {
            text.AppendLine(c, $"  … and {EmptyStreams.Count - 20} more");
        }

        text.AppendLine("records after the last anchor:");
        foreach (var (process, count) in AfterLastAnchor)
        {
            text.AppendLine(c, $"  {process}: {count}");
        }

        return text.ToString();
    }
}
