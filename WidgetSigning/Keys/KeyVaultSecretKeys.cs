using Azure;
using Azure.Core.Pipeline;
using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Logging;
using WidgetSigning.Telemetry;
using WidgetSigning.Primitives;

namespace WidgetSigning.Keys;

/// <summary>
/// One receiver's signing keys, from its Key Vault secret (<see cref="KeyVaultReceiverKeySource"/> keeps one per cached
/// receiver). The key id is the secret's version.
/// <list type="bullet">
/// <item>Key Vault is read at first use, then by a timer this source owns, every <c>KeyVault:RefreshInterval</c>;
/// at most one refresh runs at a time. Requests only ever read the cached snapshot.</item>
/// <item>A failed refresh (an outage: 5xx, 429, timeouts) keeps the last good keys and is retried with exponential backoff
/// (never sooner than a 429's <c>Retry-After</c>). With no key ever obtained, callers get a 503 (<see cref="Problems.KeyUnavailable"/>).</item>
/// <item>Revocation fails closed: when Key Vault refuses the current version (403: disabled or access removed; 404: deleted)
/// or the version is outside its <c>nbf</c>/<c>exp</c> window (checked at each use), nothing is signed
/// (<see cref="Problems.KeyUnavailable"/>, so HTTP answers 503 with <c>Retry-After</c>) and its signatures no longer
/// verify. Refreshes continue with the failure backoff, so re-enabling the version resumes signing without a restart.</item>
/// <item>Earlier versions verify while they are among the newest <c>KeyVault:AcceptedPreviousVersions</c> and were replaced
/// less than <c>KeyVault:MaxVersionAge</c> ago; disabled or expired versions never do.</item>
/// </list>
/// </summary>
internal sealed class KeyVaultSecretKeys : IDisposable
{
    private readonly SecretClient _client;
    private readonly KeyVaultOptions _options;
    private readonly string _secretName;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    // Staged versions signed with at once: each is one more HMAC per request, so a vault holding many cannot multiply the work.
    private const int MaxStagedVersions = 3;

    private readonly CancellationTokenSource _stopping = new();
    private readonly object _gate = new();

    private volatile KeyVaultKeySet? _keys;
    private Task _refresh = Task.CompletedTask;
    private ITimer? _timer;
    private bool _started;
    private bool _disposed;
    private readonly SigningMetrics _metrics;
    private int _consecutiveFailures;
    private int _unusableRefreshes;
    private long _nextAttemptTicks;

    /// <summary>Creates the keys of secret <paramref name="secretName"/>; nothing is fetched until first use.</summary>
    public KeyVaultSecretKeys(SecretClient client, string secretName, KeyVaultOptions options, TimeProvider time, ILogger logger, SigningMetrics metrics)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentException.ThrowIfNullOrEmpty(secretName);
        ArgumentNullException.ThrowIfNull(metrics);
        _client = client;
        _options = options;
        _secretName = secretName;
        _time = time;
        _logger = logger;
        _metrics = metrics;
        KeysLog.UsingKeyVault(_logger, client.VaultUri, _secretName, _options.RefreshInterval);
    }

    /// <summary>Whether the last answer was that the secret does not exist (404 listing its versions): the receiver is unknown.</summary>
    internal bool SecretMissing => _keys?.SecretMissing == true;

    /// <summary>When the next refresh is due (after a failure, the backoff). For diagnostics and tests.</summary>
    internal DateTimeOffset NextAttemptAt => new(Interlocked.Read(ref _nextAttemptTicks), TimeSpan.Zero);

    /// <summary>The refresh in flight, or the last one; completes when it has finished (it never faults).</summary>
    internal Task CurrentRefresh
    {
        get
        {
            lock (_gate)
            {
                return _refresh;
            }
        }
    }

    /// <summary>The key new signatures are made with.</summary>
    public async ValueTask<SigningKey> GetCurrentKeyAsync(CancellationToken cancellationToken)
    {
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        var now = _time.GetUtcNow();
        return keys.CurrentAt(now) ?? throw Unavailable($"The current version of Key Vault secret '{_secretName}' is not usable: {keys.UnusableAt(now)}.");
    }

    /// <summary>The current key and every staged key.</summary>
    public async ValueTask<SigningKeys> GetSigningKeysAsync(CancellationToken cancellationToken)
    {
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        var now = _time.GetUtcNow();
        var current = keys.CurrentAt(now) ?? throw Unavailable($"The current version of Key Vault secret '{_secretName}' is not usable: {keys.UnusableAt(now)}.");
        return new SigningKeys(current, keys.StagedAt(now)) { Overlap = keys.OverlapAt(now, Ed25519Overlap(_options)) };
    }

    /// <summary>Every key the secret holds, with its state and window; never key material.</summary>
    public async ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(CancellationToken cancellationToken)
    {
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        return keys.Describe(_time.GetUtcNow(), _options.MaxVersionAge);
    }

    /// <summary>The keys' states as last loaded, without loading or waiting; null before the first load finished.</summary>
    internal IReadOnlyList<KeyDescription>? DescribeLoaded() => _keys?.Describe(_time.GetUtcNow(), _options.MaxVersionAge);

    /// <summary>The key with id <paramref name="keyId"/> if it is still accepted for verification; otherwise null.</summary>
    /// <remarks>Only cached keys are searched: an unknown id never causes a Key Vault call.</remarks>
    public async ValueTask<SigningKey?> FindKeyAsync(string keyId, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(keyId);
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        return keys.Find(keyId, _time.GetUtcNow(), _options.MaxVersionAge);
    }

    /// <summary>Every key still accepted for verification, newest first.</summary>
    public async ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(CancellationToken cancellationToken)
    {
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        return keys.Verification(_time.GetUtcNow(), _options.MaxVersionAge);
    }

    /// <summary>
    /// How long a replaced Ed25519 key keeps signing beside its successor: the key set's cache lifetime (one refresh
    /// interval, the set's <c>max-age</c>) plus the time every instance takes to load the successor and publish it (one more).
    /// </summary>
    internal static TimeSpan Ed25519Overlap(KeyVaultOptions options) => options.RefreshInterval * 2;

    /// <summary>Stops the refresh timer.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            _timer?.Dispose();
        }

        // Cancelled, not disposed: a refresh that is just starting may still read its token.
        _stopping.Cancel();
    }

    private ValueTask<KeyVaultKeySet> GetKeysAsync(CancellationToken cancellationToken)
    {
        var keys = _keys;
        return keys is not null ? ValueTask.FromResult(keys) : LoadFirstAsync(cancellationToken);
    }

    private async ValueTask<KeyVaultKeySet> LoadFirstAsync(CancellationToken cancellationToken)
    {
        Task refresh;
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (!_started)
            {
                _started = true;
                _refresh = BackgroundWork.Run(RefreshAsync);
            }

            refresh = _refresh;
        }

        // Wait for the fetch in flight (the first, or a timer's retry); a caller that arrives during a
        // backoff finds it completed and gets 503 at once rather than calling Key Vault itself.
        await refresh.WaitAsync(cancellationToken).ConfigureAwait(false);
        return _keys ?? throw Unavailable($"No signing key could be loaded from Key Vault secret '{_secretName}' yet.");
    }

    private ProblemException Unavailable(string message)
    {
        var wait = NextAttemptAt - _time.GetUtcNow();
        return Problems.KeyUnavailable(message, wait > TimeSpan.FromSeconds(1) ? wait : TimeSpan.FromSeconds(1));
    }

    private void OnTimer(object? state)
    {
        lock (_gate)
        {
            if (!_disposed && _refresh.IsCompleted)
            {
                _refresh = BackgroundWork.Run(RefreshAsync);
            }
        }
    }

    private async Task RefreshAsync()
    {
        TimeSpan next;
        var throttle = new KeyVaultThrottlePolicy.Signal();

        // A root span of its own (a timer's refresh belongs to no request); Key Vault's own spans are its children.
        using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.KeyVaultRefreshSpan, System.Diagnostics.ActivityKind.Internal, parentContext: default);
        span?.SetTag("widgetsigning.secret", _secretName);
        try
        {
            var previous = _keys;
            KeyVaultKeySet keys;
            using (HttpPipeline.CreateHttpMessagePropertiesScope(new Dictionary<string, object?> { [KeyVaultThrottlePolicy.PropertyName] = throttle }))
            {
                keys = await FetchAsync(previous, _stopping.Token).ConfigureAwait(false);
            }

            _keys = keys;
            _consecutiveFailures = 0;
            _metrics.KeyVaultRefreshed(success: true);
            var now = _time.GetUtcNow();
            var usable = keys.CurrentAt(now);
            var wasUsable = previous?.CurrentAt(now);
            if (usable is null)
            {
                // Revoked, expired or not yet valid: retry on the failure schedule so a re-enabled version is picked up soon.
                _unusableRefreshes++;
                next = Backoff(_unusableRefreshes, retryAfter: null);
                if (_unusableRefreshes == 1)
                {
                    KeysLog.CurrentUnusable(_logger, _secretName, keys.CurrentVersion ?? "(unknown)", keys.UnusableAt(now) ?? string.Empty);
                }
            }
            else
            {
                _unusableRefreshes = 0;
                next = Jittered(_options.RefreshInterval);
                if (previous is null || !ReferenceEquals(previous.Current, keys.Current) || previous.Previous.Count != keys.Previous.Count)
                {
                    KeysLog.Loaded(_logger, _secretName, usable.KeyId, keys.Previous.Count);
                }

                foreach (var staged in keys.Staged)
                {
                    if (previous?.Cached(staged.Key.KeyId) is null)
                    {
                        KeysLog.Staged(_logger, _secretName, staged.Key.KeyId, staged.Window.NotBefore ?? now);
                    }
                }

                if (previous?.Current is { } before && !ReferenceEquals(before, keys.Current))
                {
                    KeysLog.Rotated(_logger, _secretName, before.KeyId, usable.KeyId);
                }
                else if (previous is not null && wasUsable is null)
                {
                    KeysLog.Resumed(_logger, _secretName, usable.KeyId);
                }
            }

            // A staged version becomes current at the first refresh after its nbf: refresh then, not up to a backoff or a
            // refresh interval later (a vault whose only version is staged would otherwise answer 503 past its nbf).
            foreach (var staged in keys.Staged)
            {
                if (staged.Window.NotBefore is { } notBefore && notBefore > now && notBefore - now < next)
                {
                    next = notBefore - now;
                }
            }
        }
        catch (OperationCanceledException) when (_stopping.IsCancellationRequested)
        {
            return;
        }
        catch (Exception ex)
        {
            _metrics.KeyVaultRefreshed(success: false);
            span?.SetStatus(System.Diagnostics.ActivityStatusCode.Error, ex.GetType().Name);
            _consecutiveFailures++;
            next = Backoff(_consecutiveFailures, throttle.RetryAfter);
            if (_keys?.CurrentAt(_time.GetUtcNow()) is { } kept)
            {
                KeysLog.RefreshFailedKeepingKey(_logger, ex, _secretName, _consecutiveFailures, kept.KeyId, next);
            }
            else
            {
                KeysLog.RefreshFailedNoKey(_logger, ex, _secretName, _consecutiveFailures, next);
            }
        }

        Interlocked.Exchange(ref _nextAttemptTicks, (_time.GetUtcNow() + next).UtcTicks);
        lock (_gate)
        {
            if (!_disposed)
            {
                _timer ??= BackgroundWork.CreateTimer(_time, OnTimer, null, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
                _timer.Change(next, Timeout.InfiniteTimeSpan);
            }
        }
    }

    // 80-100 % of the interval: many receivers' (and instances') refreshes spread out instead of reaching the vault together.
    private static TimeSpan Jittered(TimeSpan interval) => interval * (0.8 + (0.2 * Random.Shared.NextDouble()));

    private TimeSpan Backoff(int failures, TimeSpan? retryAfter)
    {
        var exponential = _options.FailureRetryDelay * Math.Pow(2, Math.Min(failures - 1, 20));
        var delay = exponential < _options.RefreshInterval ? exponential : _options.RefreshInterval;

        // Throttled: Key Vault says when it will serve us again; asking sooner only prolongs the throttling.
        return retryAfter is { } wait && wait > delay ? wait : delay;
    }

    // Lists the versions, selects what each does now (KeyVersionSelection), then reads the keys the selection names.
    private async Task<KeyVaultKeySet> FetchAsync(KeyVaultKeySet? cached, CancellationToken cancellationToken)
    {
        var now = _time.GetUtcNow();
        var (versions, closed) = await ListVersionsAsync(cached, cancellationToken).ConfigureAwait(false);
        if (closed is not null)
        {
            return closed;
        }

        var selection = KeyVersionSelection.Select(versions!, now, MaxStagedVersions, _options.AcceptedPreviousVersions, _options.MaxVersionAge);

        var staged = new List<KeyVaultKeySet.StagedKey>(selection.Staged.Count);
        foreach (var version in selection.Staged)
        {
            if (await TryGetVersionAsync(cached, version.Version, cancellationToken).ConfigureAwait(false) is { } key)
            {
                staged.Add(new KeyVaultKeySet.StagedKey(key, new KeyVaultKeySet.KeyWindow(version.NotBefore, version.ExpiresOn)));
            }
        }

        var (current, unusable) = selection.Current is { } currentVersion
            ? await ReadCurrentAsync(cached, currentVersion, selection.Refusal, cancellationToken).ConfigureAwait(false)
            : (null, selection.Refusal);

        var previous = new List<KeyVaultKeySet.PreviousKey>(selection.Retiring.Count);
        foreach (var (version, replacedOn) in selection.Retiring)
        {
            if (await TryGetVersionAsync(cached, version.Version, cancellationToken).ConfigureAwait(false) is { } key)
            {
                previous.Add(new KeyVaultKeySet.PreviousKey(key, replacedOn, new KeyVaultKeySet.KeyWindow(version.NotBefore, version.ExpiresOn)));
            }
        }

        var window = new KeyVaultKeySet.KeyWindow(selection.Current?.NotBefore, selection.Current?.ExpiresOn);
        return new KeyVaultKeySet(current, window, previous, selection.Current?.Version, unusable, staged, now, _options.MaxCachedKeyAge);
    }

    /// <summary>
    /// Every version's listed state, or, when Key Vault refuses the list (or the list fails and the version signed with is
    /// refused), a snapshot that signs nothing.
    /// </summary>
    private async Task<(List<KeyVersion>? Versions, KeyVaultKeySet? Closed)> ListVersionsAsync(KeyVaultKeySet? cached, CancellationToken cancellationToken)
    {
        var versions = new List<KeyVersion>();
        try
        {
            await foreach (var version in _client.GetPropertiesOfSecretVersionsAsync(_secretName, cancellationToken).ConfigureAwait(false))
            {
                versions.Add(new KeyVersion(version.Version, version.Enabled, version.CreatedOn, version.NotBefore, version.ExpiresOn));
            }

            return (versions, null);
        }
        catch (Exception ex) when (Refusal(ex) is { } refused)
        {
            // No access at all (or no secret): nothing signs.
            return (null, FailClosed(cached, cached?.CurrentVersion, refused, missing: ex is RequestFailedException { Status: 404 }));
        }
        catch (Exception) when (cached?.Current is not null && !cancellationToken.IsCancellationRequested)
        {
            // The list fails (an error or the client's timeout) while a cached key could sign: a revocation must not
            // hide behind the failure, so ask for the version we sign with. A refusal of it is final whatever the list
            // does; if it is still served, this is an outage (the cached keys keep signing until KeyVault:MaxCachedKeyAge).
            // With nothing cached that signs there is nothing to fail open, and a failing vault is not asked twice.
            var probe = cached.CurrentVersion;
            try
            {
                await _client.GetSecretAsync(_secretName, probe, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception probeError) when (Refusal(probeError) is { } refused)
            {
                return (null, FailClosed(cached, probe, refused));
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // The probe failed too, not as a refusal: an outage; report the list's failure.
            }

            throw;
        }
    }

    /// <summary>
    /// The current version's key, read at every refresh, cached or not: this read is the revocation check (403 disabled
    /// or access removed, 404 deleted, 401 credential no longer accepted). Null with the reason when it cannot sign.
    /// </summary>
    private async Task<(SigningKey? Key, string? Unusable)> ReadCurrentAsync(KeyVaultKeySet? cached, KeyVersion version, string? listedRefusal, CancellationToken cancellationToken)
    {
        try
        {
            var secret = (await _client.GetSecretAsync(_secretName, version.Version, cancellationToken).ConfigureAwait(false)).Value;
            var key = cached?.Cached(secret.Properties.Version) ?? Decode(secret, out var reason)
                ?? throw Problems.KeyUnavailable($"Key Vault secret '{_secretName}' version '{secret.Properties.Version}' is refused: {reason}. Store base64 of at least {SigningKey.MinimumKeyBytes} random bytes.");
            return secret.Properties.Enabled == false || listedRefusal is not null ? (null, "it is disabled") : (key, null);
        }
        catch (Exception ex) when (Refusal(ex) is { } refused)
        {
            return (null, refused);
        }
    }

    /// <summary>An earlier or staged version's key: cached (versions never change), or read once; null if refused or malformed.</summary>
    private async Task<SigningKey?> TryGetVersionAsync(KeyVaultKeySet? cached, string version, CancellationToken cancellationToken)
    {
        if (cached?.Cached(version) is { } known)
        {
            return known;
        }

        try
        {
            var secret = (await _client.GetSecretAsync(_secretName, version, cancellationToken).ConfigureAwait(false)).Value;
            return Decode(secret, out _);
        }
        catch (RequestFailedException ex) when (ex.Status is 403 or 404)
        {
            // Disabled (or deleted) between the list and this read: it neither signs nor verifies.
            return null;
        }
    }

    /// <summary>
    /// Why Key Vault's answer is a decision rather than an outage: 403 (disabled, access removed), 404 (deleted), 401 or
    /// a credential that cannot get a token (identity deleted). Null for anything else.
    /// </summary>
    private static string? Refusal(Exception exception) => exception switch
    {
        RequestFailedException { Status: 403 } => "Key Vault refuses to read it (403: the version is disabled, or the app's access was removed)",
        RequestFailedException { Status: 404 } => "Key Vault no longer has it (404: the secret was deleted)",
        RequestFailedException { Status: 401 } => "Key Vault does not accept the app's credential (401)",
        Azure.Identity.AuthenticationFailedException => "the app's credential cannot get a token (the identity was deleted or lost its federation)",
        _ => null,
    };

    /// <summary>A snapshot that signs nothing; earlier versions the cache held keep verifying until their own limits.</summary>
    private KeyVaultKeySet FailClosed(KeyVaultKeySet? cached, string? version, string reason, bool missing = false) =>
        new(null, default, cached?.Previous ?? [], version, reason, staged: null, _time.GetUtcNow(), _options.MaxCachedKeyAge) { SecretMissing = missing };

    private SigningKey? Decode(KeyVaultSecret secret, out string reason)
    {
        var key = KeyMaterial.TryDecode(secret.Value, secret.Properties.Version, secret.Properties.CreatedOn, out reason, secret.Properties.ContentType);
        if (key is null)
        {
            KeysLog.Refused(_logger, _secretName, secret.Properties.Version, reason);
        }

        return key;
    }
}
