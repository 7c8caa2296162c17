using Microsoft.Extensions.Logging;
using Microsoft.IdentityModel.Protocols;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// The issuer's OpenID configuration (its signing keys), owned here rather than by Microsoft.IdentityModel's
/// ConfigurationManager, which reports a failed fetch as an unknown key and fetches again on every call. One fetch at a
/// time, shared by every caller that needs it; a caller waits for it at most <see cref="EntraTokenValidator.MaxWait"/>.
/// A failure (or a wait that ran out) is remembered for <see cref="EntraTokenValidator.FailureWindow"/>, during which
/// nothing is fetched and a caller without usable keys is answered 503 at once. Logged once per outage (7007) and once
/// on recovery (7008).
/// </summary>
internal sealed class IssuerKeys : IDisposable
{
    private readonly object _gate = new();
    private readonly string _authority;
    private readonly string _metadataAddress;
    private readonly IDocumentRetriever _retriever;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stopping = new();
    private OpenIdConnectConfiguration? _current;
    private DateTimeOffset _fetchedAt;
    private DateTimeOffset? _failedAt;
    private DateTimeOffset _outageSince;
    private int _failures;
    private Task<OpenIdConnectConfiguration?>? _inFlight;

    public IssuerKeys(string authority, IDocumentRetriever retriever, TimeProvider time, ILogger logger)
    {
        _authority = authority;
        _metadataAddress = authority + "/.well-known/openid-configuration";
        _retriever = retriever;
        _time = time;
        _logger = logger;
    }

    /// <summary>
    /// The configuration: the one held (fetched again in the background once it is <see cref="EntraTokenValidator.AutomaticRefreshInterval"/>
    /// old), or, when none is held, the one fetched now.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.AuthUnavailable"/>: none is held and none could be fetched within the bounds.</exception>
    public async ValueTask<OpenIdConnectConfiguration> CurrentAsync(CancellationToken cancellationToken)
    {
        Task<OpenIdConnectConfiguration?> fetch;
        lock (_gate)
        {
            var now = _time.GetUtcNow();
            if (_current is not null)
            {
                if (now - _fetchedAt >= EntraTokenValidator.AutomaticRefreshInterval)
                {
                    // The keys held stay in use while the fresh ones are fetched (or while the issuer is down).
                    _ = StartFetch(now);
                }

                return _current;
            }

            fetch = StartFetch(now) ?? throw Unavailable();
        }

        return await WaitAsync(fetch, cancellationToken).ConfigureAwait(false) ?? throw Unavailable();
    }

    /// <summary>
    /// Starts a fetch when none is held (at start-up), without waiting for it, so the first call finds the keys in hand
    /// instead of spending its <see cref="EntraTokenValidator.MaxWait"/> on a cold fetch.
    /// </summary>
    public void Prefetch()
    {
        lock (_gate)
        {
            if (_current is null)
            {
                _ = StartFetch(_time.GetUtcNow());
            }
        }
    }

    /// <summary>
    /// After a token's <c>kid</c> was not among <paramref name="seen"/>'s keys: a newer configuration, fetched now if the
    /// last fetch was at least <see cref="EntraTokenValidator.RefreshInterval"/> ago, or null when none may be fetched yet
    /// (the token's key is then not one of the issuer's).
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.AuthUnavailable"/>: the fetch failed, ran past the wait, or a failure is remembered.</exception>
    public async ValueTask<OpenIdConnectConfiguration?> RefreshAsync(OpenIdConnectConfiguration seen, CancellationToken cancellationToken)
    {
        Task<OpenIdConnectConfiguration?> fetch;
        lock (_gate)
        {
            if (_current is not null && !ReferenceEquals(_current, seen))
            {
                return _current;
            }

            var now = _time.GetUtcNow();
            if (_inFlight is null && now - _fetchedAt < EntraTokenValidator.RefreshInterval)
            {
                return null;
            }

            fetch = StartFetch(now) ?? throw Unavailable();
        }

        // Fail closed, but not with a 401: the key may be a new one of the issuer's that cannot be fetched just now.
        return await WaitAsync(fetch, cancellationToken).ConfigureAwait(false) ?? throw Unavailable();
    }

    // The source is cancelled, not disposed: a fetch in flight may still read its token.
    public void Dispose() => _stopping.Cancel();

    private static ProblemException Unavailable() =>
        Problems.AuthUnavailable(retryAfter: EntraTokenValidator.FailureWindow);

    private static string Describe(Exception exception)
    {
        var text = $"{exception.GetType().Name}: {exception.Message}";
        return text.Length <= 300 ? text : text[..300] + "…";
    }

    // Under _gate. The fetch in flight, a new one, or null while a failure is remembered.
    private Task<OpenIdConnectConfiguration?>? StartFetch(DateTimeOffset now)
    {
        if (_failedAt is { } failed && now - failed < EntraTokenValidator.FailureWindow)
        {
            return null;
        }

        // On the pool: the fetch starts outside the lock, so its end (which takes the lock) always follows this
        // assignment. Detached: one fetch serves every caller waiting for it, so it is in none's trace.
        return _inFlight ??= BackgroundWork.Run(FetchAsync);
    }

    private async Task<OpenIdConnectConfiguration?> WaitAsync(Task<OpenIdConnectConfiguration?> fetch, CancellationToken cancellationToken)
    {
        try
        {
            return await fetch.WaitAsync(EntraTokenValidator.MaxWait, _time, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            // The fetch goes on (bounded by its own HTTP timeout); until it ends, callers are answered at once.
            Failed(fetch, new TimeoutException($"{_metadataAddress} did not answer within {EntraTokenValidator.MaxWait.TotalSeconds:0} s."));
            return null;
        }
    }

    // Never throws: its result (null on failure) is awaited by callers that may have stopped waiting.
    private async Task<OpenIdConnectConfiguration?> FetchAsync()
    {
        OpenIdConnectConfiguration configuration;
        try
        {
            configuration = await OpenIdConnectConfigurationRetriever.GetAsync(_metadataAddress, _retriever, _stopping.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException || !_stopping.IsCancellationRequested)
        {
            Failed(null, e);
            return null;
        }
        catch (OperationCanceledException)
        {
            return null;
        }

        int failures;
        DateTimeOffset since;
        lock (_gate)
        {
            _current = configuration;
            _fetchedAt = _time.GetUtcNow();
            _failedAt = null;
            failures = _failures;
            since = _outageSince;
            _failures = 0;
            _inFlight = null;
        }

        if (failures > 0)
        {
            CallersLog.IssuerRecovered(_logger, _authority, failures, _time.GetUtcNow() - since);
        }

        return configuration;
    }

    // A failed fetch, or (fetch set) a wait for it that ran out while it is still the one in flight.
    private void Failed(Task<OpenIdConnectConfiguration?>? fetch, Exception exception)
    {
        bool first;
        lock (_gate)
        {
            var now = _time.GetUtcNow();
            if (fetch is null)
            {
                _inFlight = null;
            }
            else if (!ReferenceEquals(_inFlight, fetch) || (_failedAt is { } failed && now - failed < EntraTokenValidator.FailureWindow))
            {
                // The fetch has ended, or another waiter has already marked this failure.
                return;
            }

            _failedAt = now;
            first = _failures++ == 0;
            if (first)
            {
                _outageSince = now;
            }
        }

        if (first)
        {
            CallersLog.IssuerUnreachable(_logger, exception, _authority, Describe(exception), EntraTokenValidator.FailureWindow);
        }
    }
}
