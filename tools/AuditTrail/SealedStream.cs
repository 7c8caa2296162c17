namespace AuditTrail;

/// <summary>What the next stream's open needs from the stream before it: its name, its seals and their positions.</summary>
internal sealed class SealedStream
{
    private readonly Dictionary<string, (long Position, long RecordsBefore)> _seals = new(StringComparer.Ordinal);

    public SealedStream(string name)
    {
        Name = name;
    }

    /// <summary>The stream's blob name.</summary>
    public string Name { get; }

    /// <summary>Its last position.</summary>
    public long LastPosition { get; set; } = -1;

    /// <summary>Its signed records.</summary>
    public long Records { get; set; }

    /// <summary>Its signed records after the process's last anchor.</summary>
    public long Unanchored { get; set; }

    /// <summary>Notes a seal at <paramref name="position"/> with hash <paramref name="hash"/>.</summary>
    public void AddSeal(string hash, long position) => _seals.TryAdd(hash, (position, Records));

    /// <summary>The seal with <paramref name="hash"/>: its position and the signed records at or before it.</summary>
    public bool TryFindSeal(string hash, out long position, out long recordsBefore)
    {
        var found = _seals.TryGetValue(hash, out var seal);
        (position, recordsBefore) = seal;
        return found;
    }
}
