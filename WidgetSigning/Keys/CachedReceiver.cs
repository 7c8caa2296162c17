namespace WidgetSigning.Keys;

/// <summary>One cached receiver: its key source and when a request last used it.</summary>
internal sealed class CachedReceiver
{
    private volatile bool _dropped;
    private int _users;

    public CachedReceiver(ReceiverId receiver, KeyVaultSecretKeys source, DateTimeOffset lastUsed)
    {
        Receiver = receiver;
        Source = source;
        LastUsed = lastUsed;
    }

    public ReceiverId Receiver { get; }

    public KeyVaultSecretKeys Source { get; }

    /// <summary>When a request last asked for it; read and written under the cache's lock.</summary>
    public DateTimeOffset LastUsed { get; set; }

    /// <summary>
    /// Whether it has left the cache (evicted, idle or unknown), so its source is or will be disposed: a request still using
    /// it that then fails to load retries on a new one.
    /// </summary>
    public bool Dropped => _dropped;

    /// <summary>Whether a request is using it now: eviction passes it over, so no request loses the source it waits on.</summary>
    public bool InUse => Volatile.Read(ref _users) > 0;

    public void MarkDropped() => _dropped = true;

    /// <summary>A request starts using it; called under the cache's lock, so eviction never races it.</summary>
    public void Enter() => Interlocked.Increment(ref _users);

    /// <summary>The request is done with it.</summary>
    public void Exit() => Interlocked.Decrement(ref _users);
}
