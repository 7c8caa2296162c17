using System.Collections.Concurrent;
using Microsoft.Extensions.Options;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>
/// Whether a caller may sign for the receivers it names: every one must be granted, or nothing is signed. Grants are read
/// once per caller per <see cref="GrantOptions.CacheDuration"/> (concurrent requests of one caller share the read), in a
/// cache of at most <see cref="GrantOptions.MaxCachedCallers"/> callers; a failed read is not cached.
/// </summary>
internal sealed class CallerGrants
{
    private readonly IGrantStore _store;
    private readonly GrantOptions _options;
    private readonly TimeProvider _time;
    private readonly ConcurrentDictionary<string, Entry> _cache = new(StringComparer.Ordinal);

    /// <summary>Creates the checker (a singleton in DI).</summary>
    public CallerGrants(IGrantStore store, IOptions<GrantOptions> options, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(options);
        _store = store;
        _options = options.Value;
        _time = time;
    }

    /// <summary>Throws unless <paramref name="caller"/> is granted every receiver of <paramref name="receivers"/>.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.ReceiverNotGranted"/>: the first receiver not granted.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.GrantsUnavailable"/>: the grants could not be read.</exception>
    public async ValueTask EnsureGrantedAsync(CallerIdentity caller, IReadOnlyList<ReceiverId> receivers, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(caller);
        ArgumentNullException.ThrowIfNull(receivers);
        if (caller.IsDevelopment)
        {
            return;
        }

        var granted = await GrantedAsync(caller.ObjectId, cancellationToken).ConfigureAwait(false);
        foreach (var receiver in receivers)
        {
            if (!granted.Contains(receiver.Value))
            {
                throw Problems.ReceiverNotGranted(receiver.Value);
            }
        }
    }

    /// <summary>The receivers granted to <paramref name="caller"/> (read as <see cref="EnsureGrantedAsync"/> reads them).</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.GrantsUnavailable"/>: the grants could not be read.</exception>
    public async ValueTask<IReadOnlySet<string>> GrantedReceiversAsync(CallerIdentity caller, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(caller);
        return await GrantedAsync(caller.ObjectId, cancellationToken).ConfigureAwait(false);
    }

    private async Task<IReadOnlySet<string>> GrantedAsync(string objectId, CancellationToken cancellationToken)
    {
        var now = _time.GetUtcNow();
        if (_cache.TryGetValue(objectId, out var cached) && cached.Expires > now)
        {
            return await cached.Read.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
        }

        if (_cache.Count >= _options.MaxCachedCallers)
        {
            Trim(now);
        }

        // One read per caller at a time: requests arriving while it runs share it. Lazy, so only the entry that lands in
        // the cache starts a read (concurrent misses would otherwise each read the table).
        var entry = new Entry(now + _options.CacheDuration, new Lazy<Task<IReadOnlySet<string>>>(() => _store.GetReceiversAsync(objectId, _options.MaxReceiversPerCaller, CancellationToken.None)));
        var current = _cache.AddOrUpdate(objectId, entry, (_, old) => old.Expires > now ? old : entry);
        try
        {
            return await current.Read.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.GrantsUnavailable))
        {
            _cache.TryRemove(new KeyValuePair<string, Entry>(objectId, current));
            throw;
        }
    }

    // Expired entries first; if the cache is still full, the ones closest to expiry (the oldest reads).
    private void Trim(DateTimeOffset now)
    {
        foreach (var (key, entry) in _cache)
        {
            if (entry.Expires <= now)
            {
                _cache.TryRemove(new KeyValuePair<string, Entry>(key, entry));
            }
        }

        var excess = _cache.Count - (_options.MaxCachedCallers * 3 / 4);
        if (excess > 0)
        {
            foreach (var (key, entry) in _cache.OrderBy(e => e.Value.Expires).Take(excess).ToList())
            {
                _cache.TryRemove(new KeyValuePair<string, Entry>(key, entry));
            }
        }
    }

    private sealed record Entry(DateTimeOffset Expires, Lazy<Task<IReadOnlySet<string>>> Read);
}
