namespace WidgetSigning.Keys;

/// <summary>One cached receiver: its key source and when a request last used it.</summary>
internal sealed class CachedReceiver
{
    private volatile bool _dropped;

    public CachedReceiver(ReceiverId receiver, KeyVaultSigningKeySource source, DateTimeOffset lastUsed)
    {
        Receiver = receiver;
        Source = source;
        LastUsed = lastUsed;
    }

    public ReceiverId Receiver { get; }

    public KeyVaultSigningKeySource Source { get; }

    /// <summary>When a request last asked for it; read and written under the cache's lock.</summary>
    public DateTimeOffset LastUsed { get; set; }

    /// <summary>
    /// Whether it has left the cache (evicted, idle or unknown), so its source is or will be disposed: a request still using
    /// it that then fails to load retries on a new one.
    /// </summary>
    public bool Dropped => _dropped;

    public void MarkDropped() => _dropped = true;
}
