using Azure;
using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Telemetry;
using WidgetSigning.Primitives;

namespace WidgetSigning.Keys;

/// <summary>
/// Every receiver's keys from Key Vault: receiver <c>x</c>'s secret is <c>KeyVault:ReceiverSecretPrefix</c> + <c>x</c>
/// (the default receiver's, <c>KeyVault:SecretName</c>). A receiver is loaded on first use and then refreshed on its own
/// schedule by a <see cref="KeyVaultSecretKeys"/>, so one receiver's missing, revoked or unreadable key fails that
/// receiver alone. What many receivers cost is bounded:
/// <list type="bullet">
/// <item>At most <c>Receivers:MaxCachedReceivers</c> receivers are cached (the least recently used is dropped first), and
/// one unused for <c>Receivers:IdleTimeout</c> is dropped by a periodic sweep; a dropped receiver is no longer refreshed.
/// The default receiver is always kept.</item>
/// <item>A receiver Key Vault has no secret for is remembered as unknown for <c>Receivers:UnknownReceiverCacheDuration</c>
/// (at most <c>Receivers:MaxUnknownReceivers</c>): asking again is a 404 without a Key Vault call.</item>
/// <item>Loading a receiver that is not cached takes a token from a bucket of <c>Receivers:MaxLookupsPerSecond</c>; with
/// none left the request gets a 429 (<see cref="Problems.ReceiverLookupsLimited"/>) and Key Vault is not called. The
/// anonymous key set pays from a bucket of its own instead (<see cref="DescribeKeysOnOwnBudgetAsync"/>), so its
/// probes never spend this one.</item>
/// </list>
/// </summary>
internal sealed class KeyVaultReceiverKeySource : IReceiverKeySource, IDisposable
{
    // A request whose receiver was dropped while it loaded retries on a fresh source; dropped this often in a row, the
    // cache is far too small for the traffic and the request gets the 503 of its last attempt.
    private const int MaxAttempts = 3;

    // The "lookups limited" warning is written at most this often, with a count, so a flood cannot flood the logs.
    private static readonly TimeSpan LimitedLogInterval = TimeSpan.FromSeconds(10);

    private readonly SecretClient _client;
    private readonly KeyVaultOptions _options;
    private readonly ReceiverOptions _receivers;
    private readonly TimeProvider _time;
    private readonly ILogger<KeyVaultReceiverKeySource> _logger;
    private readonly SigningMetrics _metrics;
    private readonly object _gate = new();
    private readonly ReceiverSourceCache _cache;
    private readonly UnknownReceiverCache _unknown;
    private readonly LookupTokenBucket _lookups;
    private readonly ITimer _sweep;
    private CachedReceiver? _default;
    private bool _disposed;

    // Set when receivers in use held the cache over its bound; the last request to leave trims it.
    private volatile bool _overCapacity;
    private long _refusedSinceLog;
    private DateTimeOffset _refusingSince;
    private DateTimeOffset _limitedLoggedAt = DateTimeOffset.MinValue;

    /// <summary>Creates the source; nothing is fetched until a receiver is first used.</summary>
    public KeyVaultReceiverKeySource(
        SecretClient client, IOptions<KeyVaultOptions> options, IOptions<ReceiverOptions> receivers, TimeProvider time, ILogger<KeyVaultReceiverKeySource> logger, SigningMetrics metrics)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(receivers);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(logger);
        ArgumentNullException.ThrowIfNull(metrics);
        _client = client;
        _options = options.Value;
        _receivers = receivers.Value;
        _time = time;
        _logger = logger;
        DefaultReceiver = _receivers.Default;
        _cache = new ReceiverSourceCache(_receivers.MaxCachedReceivers);
        _unknown = new UnknownReceiverCache(_receivers.MaxUnknownReceivers, _receivers.UnknownReceiverCacheDuration);
        _lookups = new LookupTokenBucket(_receivers.MaxLookupsPerSecond, time.GetUtcNow());
        _metrics = metrics;
        _metrics.ObserveKeys(ReadKeyExpiries);

        // A quarter of the idle timeout: an unused receiver is dropped between 1 and 1.25 idle timeouts after its last use.
        var sweep = _receivers.IdleTimeout / 4;
        _sweep = BackgroundWork.CreateTimer(time, static self => ((KeyVaultReceiverKeySource)self!).SweepIdle(), this, sweep, sweep);
    }

    /// <inheritdoc />
    public ReceiverId? DefaultReceiver { get; }

    /// <summary>How many ids are remembered as unknown now (some may have expired). For diagnostics and tests.</summary>
    internal int UnknownReceivers
    {
        get
        {
            lock (_gate)
            {
                return _unknown.Count;
            }
        }
    }

    /// <summary>The secret that holds <paramref name="receiver"/>'s key.</summary>
    public string SecretNameOf(ReceiverId receiver)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        return receiver == DefaultReceiver ? _options.SecretName! : _options.ReceiverSecretPrefix + receiver.Value;
    }

    /// <inheritdoc />
    public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        UseAsync(receiver, static (source, ct) => source.GetSigningKeysAsync(ct), cancellationToken);

    /// <inheritdoc />
    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        UseAsync(receiver, static (source, ct) => source.GetVerificationKeysAsync(ct), cancellationToken);

    /// <inheritdoc />
    public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        UseAsync(receiver, static (source, ct) => source.DescribeKeysAsync(ct), cancellationToken);

    /// <inheritdoc />
    public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysOnOwnBudgetAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        UseAsync(receiver, static (source, ct) => source.DescribeKeysAsync(ct), cancellationToken, paid: true);

    /// <inheritdoc />
    public IReadOnlyList<KeyDescription>? DescribeLoadedKeys(ReceiverId receiver)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        KeyVaultSecretKeys? source;
        lock (_gate)
        {
            source = receiver == DefaultReceiver ? _default?.Source : _cache.Peek(receiver)?.Source;
        }

        return source?.DescribeLoaded();
    }

    /// <inheritdoc />
    /// <remarks>
    /// One page of Key Vault's own secret list (up to 25 secrets) per call, so a page may hold fewer receivers than asked
    /// for (secrets that are not receivers' are skipped) and still have a next page. The token is Key Vault's skip token.
    /// </remarks>
    public async ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pageSize, 1);
        if (pageToken is not null && !SecretListLink.IsToken(pageToken))
        {
            throw new ArgumentException("The page token is not one this service handed out.", nameof(pageToken));
        }

        var vault = _client.VaultUri;
        var link = SecretListLink.Build(vault, pageToken, pageSize);
        Page<SecretProperties>? page = null;
        try
        {
            await foreach (var first in _client.GetPropertiesOfSecretsAsync(cancellationToken).AsPages(link, Math.Min(pageSize, SecretListLink.MaxPageSize)).ConfigureAwait(false))
            {
                page = first;
                break;
            }
        }
        catch (RequestFailedException ex) when (ex.Status == 400 && pageToken is not null)
        {
            // Well-formed but not Key Vault's: the vault refuses it, and so does this service (400, not a 5xx).
            throw new ArgumentException("The page token is not one this service handed out.", nameof(pageToken), ex);
        }

        if (page is null)
        {
            return new ReceiverPage([], null);
        }

        var receivers = new List<ReceiverId>(page.Values.Count);
        foreach (var secret in page.Values)
        {
            if (ReceiverOf(secret.Name) is { } receiver)
            {
                receivers.Add(receiver);
            }
        }

        return new ReceiverPage(receivers, SecretListLink.TokenOf(vault, page.ContinuationToken));
    }

    /// <inheritdoc />
    public void Dispose()
    {
        var dropped = new List<CachedReceiver>();
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            _sweep.Dispose();
            _cache.Clear(dropped);
            if (_default is not null)
            {
                _default.MarkDropped();
                dropped.Add(_default);
                _default = null;
            }
        }

        foreach (var entry in dropped)
        {
            entry.Source.Dispose();
        }
    }

    /// <summary>Completes when every cached receiver's refresh in flight has finished. For tests that move a fake clock.</summary>
    internal Task RefreshesSettledAsync()
    {
        List<Task> refreshes;
        lock (_gate)
        {
            refreshes = [.. _cache.Entries.Select(e => e.Source.CurrentRefresh)];
            if (_default is not null)
            {
                refreshes.Add(_default.Source.CurrentRefresh);
            }
        }

        return Task.WhenAll(refreshes);
    }

    private ReceiverId? ReceiverOf(string secretName)
    {
        if (DefaultReceiver is { } fallback && string.Equals(secretName, _options.SecretName, StringComparison.OrdinalIgnoreCase))
        {
            return fallback;
        }

        // Key Vault names are case-insensitive: Receiver-A is receiver a's secret.
        var prefix = _options.ReceiverSecretPrefix;
        return secretName.StartsWith(prefix, StringComparison.OrdinalIgnoreCase) &&
            ReceiverId.TryParse(secretName[prefix.Length..].ToLowerInvariant(), out var receiver) &&
            receiver != DefaultReceiver
            ? receiver
            : null;
    }

    // paid: the caller spent its own budget on this lookup (the key set's bucket), so none of the signing bucket is taken.
    private async ValueTask<T> UseAsync<T>(
        ReceiverId receiver, Func<KeyVaultSecretKeys, CancellationToken, ValueTask<T>> use, CancellationToken cancellationToken, bool paid = false)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        for (var attempt = 1; ; attempt++)
        {
            var entry = Acquire(receiver, paid: paid || attempt > 1);
            T result;
            try
            {
                result = await use(entry.Source, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is ObjectDisposedException or ProblemException { Problem.Type: Problems.Types.KeyUnavailable } &&
                entry.Dropped && attempt < MaxAttempts && !cancellationToken.IsCancellationRequested)
            {
                // Dropped (evicted, idle, found unknown) while this request loaded it: ask again, from a fresh source or the negative cache.
                continue;
            }
            catch (ObjectDisposedException e) when (entry.Dropped)
            {
                // Dropped on every attempt: a 503 to retry, never a 500.
                throw Problems.KeyUnavailable($"Receiver '{receiver.Value}' could not be kept cached long enough to load its key.", TimeSpan.FromSeconds(1), receiver.Value, e);
            }
            catch (ProblemException e) when (e.Is(Problems.Types.KeyUnavailable) && IsUnknown(entry))
            {
                throw Forget(entry);
            }
            catch (ProblemException e) when (e.Is(Problems.Types.KeyUnavailable))
            {
                // The receiver's own source does not know which receiver it serves: the answer names it.
                throw Problems.KeyUnavailable(e.Message, e.Problem.RetryAfter, receiver.Value, e);
            }
            finally
            {
                entry.Exit();
                if (_overCapacity)
                {
                    Trim();
                }
            }

            return IsUnknown(entry) ? throw Forget(entry) : result;
        }
    }

    /// <summary>
    /// The receiver's cache entry: cached, or (for an id not remembered as unknown, when a lookup token is left or
    /// <paramref name="paid"/>) a new one. The default receiver is created once and never dropped, without a token.
    /// </summary>
    private CachedReceiver Acquire(ReceiverId receiver, bool paid)
    {
        var evicted = new List<CachedReceiver>(0);
        CachedReceiver? entry = null;
        var retryAfter = TimeSpan.Zero;
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var now = _time.GetUtcNow();
            if (receiver == DefaultReceiver)
            {
                _default ??= new CachedReceiver(receiver, Create(receiver), now);
                _default.Enter();
                return _default;
            }

            if (_cache.TryUse(receiver, now) is { } cached)
            {
                cached.Enter();
                return cached;
            }

            if (_unknown.Contains(receiver, now))
            {
                throw Problems.UnknownReceiver(receiver.Value);
            }

            if (paid || _lookups.TryTake(now, out retryAfter))
            {
                entry = new CachedReceiver(receiver, Create(receiver), now);
                entry.Enter();
                _cache.Add(entry, evicted);
                _overCapacity = _cache.Count > _receivers.MaxCachedReceivers;
            }
            else
            {
                if (_refusedSinceLog++ == 0)
                {
                    _refusingSince = now;
                }

                if (now - _limitedLoggedAt >= LimitedLogInterval)
                {
                    KeysLog.LookupsLimited(_logger, _receivers.MaxLookupsPerSecond, _refusedSinceLog, _refusingSince);
                    _limitedLoggedAt = now;
                    _refusedSinceLog = 0;
                }
            }
        }

        if (entry is null)
        {
            throw Problems.ReceiverLookupsLimited(
                $"Receiver '{receiver.Value}' is not cached on this instance, and lookups of receivers are limited to {_receivers.MaxLookupsPerSecond} per second.",
                retryAfter);
        }

        DisposeEvicted(evicted);
        return entry;
    }

    private void Trim()
    {
        var evicted = new List<CachedReceiver>(0);
        lock (_gate)
        {
            _cache.Trim(evicted);
            _overCapacity = _cache.Count > _receivers.MaxCachedReceivers;
        }

        DisposeEvicted(evicted);
    }

    private void DisposeEvicted(List<CachedReceiver> evicted)
    {
        foreach (var old in evicted)
        {
            old.Source.Dispose();
            KeysLog.ReceiverEvicted(_logger, old.Receiver.Value, _receivers.MaxCachedReceivers);
        }
    }

    private KeyVaultSecretKeys Create(ReceiverId receiver) => new(_client, SecretNameOf(receiver), _options, _time, _logger, _metrics);

    // The key-expiry gauge's readings: cached keys only, never a Key Vault call (the gauge is read on the exporter's thread).
    private IEnumerable<KeyExpiryReading> ReadKeyExpiries()
    {
        List<CachedReceiver> receivers;
        lock (_gate)
        {
            if (_disposed)
            {
                return [];
            }

            receivers = [.. _cache.Entries];
            if (_default is { } fallback)
            {
                receivers.Add(fallback);
            }
        }

        var now = _time.GetUtcNow();
        var readings = new List<KeyExpiryReading>();
        foreach (var receiver in receivers)
        {
            foreach (var key in receiver.Source.DescribeLoaded() ?? [])
            {
                if (key.ExpiresOn is { } expires)
                {
                    readings.Add(new KeyExpiryReading(receiver.Receiver.Value, StateName(key.State), (expires - now).TotalSeconds));
                }
            }
        }

        return readings;
    }

    private static string StateName(KeyState state) => state switch
    {
        KeyState.Current => "current",
        KeyState.Staged => "staged",
        _ => "retiring",
    };

    // The default receiver is configured: its missing secret is an outage (503), not an unknown receiver.
    private bool IsUnknown(CachedReceiver entry) => entry.Receiver != DefaultReceiver && entry.Source.SecretMissing;

    /// <summary>Drops the receiver and remembers it as unknown; the exception to throw.</summary>
    private ProblemException Forget(CachedReceiver entry)
    {
        bool removed;
        lock (_gate)
        {
            removed = _cache.Remove(entry);
            if (removed)
            {
                _unknown.Add(entry.Receiver, _time.GetUtcNow());
            }
        }

        if (removed)
        {
            entry.Source.Dispose();
            KeysLog.ReceiverUnknown(_logger, entry.Receiver.Value, SecretNameOf(entry.Receiver), _receivers.UnknownReceiverCacheDuration);
        }

        return Problems.UnknownReceiver(entry.Receiver.Value);
    }

    private void SweepIdle()
    {
        var dropped = new List<CachedReceiver>();
        int remaining;
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            var now = _time.GetUtcNow();
            _cache.RemoveIdle(now - _receivers.IdleTimeout, dropped);
            _cache.Trim(dropped);
            _unknown.RemoveExpired(now);
            remaining = _cache.Count;
        }

        foreach (var entry in dropped)
        {
            entry.Source.Dispose();
        }

        if (dropped.Count > 0)
        {
            KeysLog.IdleReceiversDropped(_logger, dropped.Count, _receivers.IdleTimeout, remaining);
        }
    }
}
