namespace WidgetSigning.Keys;

/// <summary>
/// The receivers whose key sources one instance keeps: at most a bound, the least recently used dropped first, and those
/// idle too long dropped by <see cref="RemoveIdle"/>. A receiver a request is using is never dropped for the bound: while
/// every older one is in use the cache holds more (at most one more per request in flight) until <see cref="Trim"/> or the
/// next <see cref="Add"/>. Dropped entries are marked and handed back; the caller disposes their
/// sources outside its lock. Not thread-safe: the caller holds a lock.
/// </summary>
internal sealed class ReceiverSourceCache
{
    private readonly Dictionary<ReceiverId, LinkedListNode<CachedReceiver>> _entries = [];

    // Most recently used first: eviction and the idle sweep both work from the end.
    private readonly LinkedList<CachedReceiver> _recency = new();
    private readonly int _capacity;

    public ReceiverSourceCache(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _capacity = capacity;
    }

    public int Count => _entries.Count;

    public IEnumerable<CachedReceiver> Entries => _recency;

    /// <summary>The cached receiver, not marked as used (its place and idle time unchanged); null when not cached.</summary>
    public CachedReceiver? Peek(ReceiverId receiver) => _entries.TryGetValue(receiver, out var node) ? node.Value : null;

    /// <summary>The cached receiver, marked as used at <paramref name="now"/>; null when not cached.</summary>
    public CachedReceiver? TryUse(ReceiverId receiver, DateTimeOffset now)
    {
        if (!_entries.TryGetValue(receiver, out var node))
        {
            return null;
        }

        node.Value.LastUsed = now;
        if (node != _recency.First)
        {
            _recency.Remove(node);
            _recency.AddFirst(node);
        }

        return node.Value;
    }

    /// <summary>Adds <paramref name="entry"/> as the most recently used; the least recently used beyond the bound go to <paramref name="evicted"/>.</summary>
    public void Add(CachedReceiver entry, List<CachedReceiver> evicted)
    {
        if (_entries.TryGetValue(entry.Receiver, out var existing))
        {
            Drop(existing, evicted);
        }

        _entries[entry.Receiver] = _recency.AddFirst(entry);
        Trim(evicted);
    }

    /// <summary>Drops the least recently used receivers not in use until the bound holds (or only receivers in use are left).</summary>
    public void Trim(List<CachedReceiver> evicted)
    {
        var node = _recency.Last;
        while (_entries.Count > _capacity && node is not null)
        {
            var newer = node.Previous;
            if (!node.Value.InUse)
            {
                Drop(node, evicted);
            }

            node = newer;
        }
    }

    /// <summary>Removes <paramref name="entry"/> if it is still the one cached for its receiver.</summary>
    public bool Remove(CachedReceiver entry)
    {
        if (!_entries.TryGetValue(entry.Receiver, out var node) || !ReferenceEquals(node.Value, entry))
        {
            return false;
        }

        _entries.Remove(entry.Receiver);
        _recency.Remove(node);
        entry.MarkDropped();
        return true;
    }

    /// <summary>Moves every receiver last used at or before <paramref name="cutoff"/> to <paramref name="dropped"/>.</summary>
    public void RemoveIdle(DateTimeOffset cutoff, List<CachedReceiver> dropped)
    {
        while (_recency.Last is { } oldest && oldest.Value.LastUsed <= cutoff)
        {
            Drop(oldest, dropped);
        }
    }

    /// <summary>Empties the cache into <paramref name="dropped"/>.</summary>
    public void Clear(List<CachedReceiver> dropped)
    {
        while (_recency.Last is { } last)
        {
            Drop(last, dropped);
        }
    }

    private void Drop(LinkedListNode<CachedReceiver> node, List<CachedReceiver> dropped)
    {
        _entries.Remove(node.Value.Receiver);
        _recency.Remove(node);
        node.Value.MarkDropped();
        dropped.Add(node.Value);
    }
}
