namespace WidgetSigning.Keys;

/// <summary>
/// A token bucket holding at most as many tokens as it refills per second, refilled continuously from the times it is
/// given. Hand-written rather than <c>TokenBucketRateLimiter</c>, which reads <c>Stopwatch</c> and its own timer instead of
/// a <see cref="TimeProvider"/>, so a fake clock could not drive its refill. Not thread-safe: the caller holds a lock.
/// </summary>
internal sealed class LookupTokenBucket
{
    private readonly double _perSecond;
    private double _tokens;
    private DateTimeOffset _filledAt;

    /// <summary>Creates a full bucket of <paramref name="perSecond"/> tokens, refilled at that many per second.</summary>
    public LookupTokenBucket(int perSecond, DateTimeOffset now)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(perSecond, 1);
        _perSecond = perSecond;
        _tokens = perSecond;
        _filledAt = now;
    }

    /// <summary>Takes one token; with none, false and how long until one is there (whole seconds, at least one).</summary>
    public bool TryTake(DateTimeOffset now, out TimeSpan retryAfter)
    {
        // A clock that steps back refills nothing (and is not paid back later either).
        if (now > _filledAt)
        {
            _tokens = Math.Min(_perSecond, _tokens + ((now - _filledAt).TotalSeconds * _perSecond));
            _filledAt = now;
        }

        if (_tokens >= 1)
        {
            _tokens -= 1;
            retryAfter = TimeSpan.Zero;
            return true;
        }

        retryAfter = TimeSpan.FromSeconds(Math.Max(1, Math.Ceiling((1 - _tokens) / _perSecond)));
        return false;
    }
}
