using Azure.Core.Pipeline;
using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace FunctionApp.Keys;

/// <summary>
/// Signing keys from one Key Vault secret. The key id is the secret's version.
/// <list type="bullet">
/// <item>Key Vault is read at first use, then by a timer this source owns, every <c>KeyVault:RefreshInterval</c>;
/// at most one refresh runs at a time. Requests only ever read the cached snapshot.</item>
/// <item>A failed refresh keeps the last good keys and is retried with exponential backoff (never sooner than a 429's
/// <c>Retry-After</c>). With no key ever obtained, callers get <see cref="SigningKeyUnavailableException"/>.</item>
/// <item>Earlier versions verify while they are among the newest <c>KeyVault:AcceptedPreviousVersions</c> and were replaced
/// less than <c>KeyVault:MaxVersionAge</c> ago; disabled or expired versions never do.</item>
/// </list>
/// </summary>
public sealed class KeyVaultSigningKeySource : ISigningKeySource, IDisposable
{
    private readonly SecretClient _client;
    private readonly KeyVaultOptions _options;
    private readonly string _secretName;
    private readonly TimeProvider _time;
    private readonly ILogger<KeyVaultSigningKeySource> _logger;
    private readonly CancellationTokenSource _stopping = new();
    private readonly object _gate = new();

    private volatile KeyVaultKeySet? _keys;
    private Task _refresh = Task.CompletedTask;
    private ITimer? _timer;
    private bool _started;
    private bool _disposed;
    private int _consecutiveFailures;
    private long _nextAttemptTicks;

    /// <summary>Creates the source; nothing is fetched until first use.</summary>
    public KeyVaultSigningKeySource(
        SecretClient client,
        IOptions<KeyVaultOptions> options,
        TimeProvider time,
        ILogger<KeyVaultSigningKeySource> logger)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(options);
        _client = client;
        _options = options.Value;
        _secretName = _options.SecretName ?? throw new ArgumentException($"{KeyVaultOptions.SectionName}:{nameof(KeyVaultOptions.SecretName)} is not set.", nameof(options));
        _time = time;
        _logger = logger;
        KeysLog.UsingKeyVault(_logger, client.VaultUri, _secretName, _options.RefreshInterval);
    }

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

    /// <inheritdoc />
    public async ValueTask<SigningKey> GetCurrentKeyAsync(CancellationToken cancellationToken) =>
        (await GetKeysAsync(cancellationToken).ConfigureAwait(false)).Current;

    /// <inheritdoc />
    /// <remarks>Only cached keys are searched: an unknown id never causes a Key Vault call.</remarks>
    public async ValueTask<SigningKey?> FindKeyAsync(string keyId, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(keyId);
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        return keys.Find(keyId, _time.GetUtcNow(), _options.MaxVersionAge);
    }

    /// <inheritdoc />
    public async ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(CancellationToken cancellationToken)
    {
        var keys = await GetKeysAsync(cancellationToken).ConfigureAwait(false);
        return keys.Verification(_time.GetUtcNow(), _options.MaxVersionAge);
    }

    /// <inheritdoc />
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
                _refresh = Task.Run(RefreshAsync);
            }

            refresh = _refresh;
        }

        // Wait for the fetch in flight (the first, or a timer's retry); a caller that arrives during a
        // backoff finds it completed and gets 503 at once rather than calling Key Vault itself.
        await refresh.WaitAsync(cancellationToken).ConfigureAwait(false);
        return _keys ?? throw Unavailable();
    }

    private SigningKeyUnavailableException Unavailable()
    {
        var wait = NextAttemptAt - _time.GetUtcNow();
        return new SigningKeyUnavailableException($"No signing key could be loaded from Key Vault secret '{_secretName}' yet.")
        {
            RetryAfter = wait > TimeSpan.FromSeconds(1) ? wait : TimeSpan.FromSeconds(1),
        };
    }

    private void OnTimer(object? state)
    {
        lock (_gate)
        {
            if (!_disposed && _refresh.IsCompleted)
            {
                _refresh = Task.Run(RefreshAsync);
            }
        }
    }

    private async Task RefreshAsync()
    {
        TimeSpan next;
        var throttle = new KeyVaultThrottlePolicy.Signal();
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
            next = _options.RefreshInterval;
            if (previous is null || !ReferenceEquals(previous.Current, keys.Current) || previous.Previous.Count != keys.Previous.Count)
            {
                KeysLog.Loaded(_logger, _secretName, keys.Current.KeyId, keys.Previous.Count);
            }

            if (previous is not null && !ReferenceEquals(previous.Current, keys.Current))
            {
                KeysLog.Rotated(_logger, _secretName, previous.Current.KeyId, keys.Current.KeyId);
            }
        }
        catch (OperationCanceledException) when (_stopping.IsCancellationRequested)
        {
            return;
        }
        catch (Exception ex)
        {
            _consecutiveFailures++;
            next = Backoff(_consecutiveFailures, throttle.RetryAfter);
            if (_keys is { } kept)
            {
                KeysLog.RefreshFailedKeepingKey(_logger, ex, _secretName, _consecutiveFailures, kept.Current.KeyId, next);
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
                _timer ??= _time.CreateTimer(OnTimer, null, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
                _timer.Change(next, Timeout.InfiniteTimeSpan);
            }
        }
    }

    private TimeSpan Backoff(int failures, TimeSpan? retryAfter)
    {
        var exponential = _options.FailureRetryDelay * Math.Pow(2, Math.Min(failures - 1, 20));
        var delay = exponential < _options.RefreshInterval ? exponential : _options.RefreshInterval;

        // Throttled: Key Vault says when it will serve us again; asking sooner only prolongs the throttling.
        return retryAfter is { } wait && wait > delay ? wait : delay;
    }

    private async Task<KeyVaultKeySet> FetchAsync(KeyVaultKeySet? cached, CancellationToken cancellationToken)
    {
        var now = _time.GetUtcNow();
        var secret = (await _client.GetSecretAsync(_secretName, version: null, cancellationToken).ConfigureAwait(false)).Value;
        var currentProperties = secret.Properties;
        var current = cached?.Cached(currentProperties.Version) ?? Decode(secret, out var reason)
            ?? throw new SecretRefusedException(_secretName, currentProperties.Version, reason);

        var candidates = new List<SecretProperties>();
        await foreach (var version in _client.GetPropertiesOfSecretVersionsAsync(_secretName, cancellationToken).ConfigureAwait(false))
        {
            if (!string.Equals(version.Version, currentProperties.Version, StringComparison.Ordinal) &&
                version.Enabled == true &&
                version.CreatedOn is { } created && created <= (currentProperties.CreatedOn ?? now) &&
                (version.ExpiresOn is null || version.ExpiresOn > now) &&
                (version.NotBefore is null || version.NotBefore <= now))
            {
                candidates.Add(version);
            }
        }

        candidates.Sort((a, b) => b.CreatedOn!.Value.CompareTo(a.CreatedOn!.Value));
        var previous = new List<KeyVaultKeySet.PreviousKey>();
        var replacedOn = currentProperties.CreatedOn ?? now;
        for (var i = 0; i < candidates.Count && i < _options.AcceptedPreviousVersions; i++)
        {
            if (now - replacedOn > _options.MaxVersionAge)
            {
                break;
            }

            var properties = candidates[i];
            var key = cached?.Cached(properties.Version);
            if (key is null)
            {
                var older = (await _client.GetSecretAsync(_secretName, properties.Version, cancellationToken).ConfigureAwait(false)).Value;
                key = Decode(older, out _);
            }

            if (key is not null)
            {
                previous.Add(new KeyVaultKeySet.PreviousKey(key, replacedOn));
            }

            replacedOn = properties.CreatedOn!.Value;
        }

        return new KeyVaultKeySet(current, previous);
    }

    private SigningKey? Decode(KeyVaultSecret secret, out string reason)
    {
        var key = KeyMaterial.TryDecode(secret.Value, secret.Properties.Version, secret.Properties.CreatedOn, out reason);
        if (key is null)
        {
            KeysLog.Refused(_logger, _secretName, secret.Properties.Version, reason);
        }

        return key;
    }
}
