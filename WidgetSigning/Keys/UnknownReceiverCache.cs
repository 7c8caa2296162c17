namespace WidgetSigning.Keys;

/// <summary>
/// Receivers Key Vault has no secret for, each remembered for a fixed time and at most a bound of them (the oldest go
/// first), so a repeated unknown id is answered without a Key Vault call. Not thread-safe: the caller holds a lock.
/// </summary>
internal sealed class UnknownReceiverCache
{
    private readonly Dictionary<ReceiverId, LinkedListNode<Unknown>> _entries = [];

    // Oldest first; every entry lives equally long, so this is also expiry order.
    private readonly LinkedList<Unknown> _order = new();
    private readonly int _capacity;
    private readonly TimeSpan _duration;

    /// <summary>Remembers at most <paramref name="capacity"/> ids, each for <paramref name="duration"/>.</summary>
    public UnknownReceiverCache(int capacity, TimeSpan duration)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _capacity = capacity;
        _duration = duration;
    }

    /// <summary>How many ids are remembered (some may have expired since the last call).</summary>
    public int Count => _entries.Count;

    /// <summary>Whether <paramref name="receiver"/> is remembered as unknown at <paramref name="now"/>.</summary>
    public bool Contains(ReceiverId receiver, DateTimeOffset now)
    {
        if (!_entries.TryGetValue(receiver, out var node))
        {
            return false;
        }

        if (node.Value.ExpiresAt > now)
        {
            return true;
        }

        Remove(node);
        return false;
    }

    /// <summary>Remembers <paramref name="receiver"/> as unknown from <paramref name="now"/>, dropping the oldest beyond the bound.</summary>
    public void Add(ReceiverId receiver, DateTimeOffset now)
    {
        if (_entries.TryGetValue(receiver, out var existing))
        {
            Remove(existing);
        }

        RemoveExpired(now);
        _entries[receiver] = _order.AddLast(new Unknown(receiver, now + _duration));
        while (_entries.Count > _capacity)
        {
            Remove(_order.First!);
        }
    }

    /// <summary>Forgets every id whose time has passed.</summary>
    public void RemoveExpired(DateTimeOffset now)
    {
        while (_order.First is { } oldest && oldest.Value.ExpiresAt <= now)
        {
            Remove(oldest);
        }
    }

    private void Remove(LinkedListNode<Unknown> node)
    {
        _entries.Remove(node.Value.Receiver);
        _order.Remove(node);
    }

    private readonly record struct Unknown(ReceiverId Receiver, DateTimeOffset ExpiresAt);
}
