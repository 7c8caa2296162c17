using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Callers;
using WidgetSigning.Callers.Entra;

namespace FunctionApp.Tests.Callers;

/// <summary>The validated-token cache: an entry lasts until the token's exp and at most MaxAge, and the cache stays bounded.</summary>
public sealed class ValidatedTokenCacheTests
{
    private static readonly DateTimeOffset Start = new(2026, 11, 27, 0, 0, 0, TimeSpan.Zero);
    private static readonly CallerIdentity Caller = new("7a1e0000-0000-4000-8000-00000000000c", "app", "tenant", [AppRoles.Sign]);

    [Fact]
    public void TryGet_TokenExpiresBeforeMaxAge_ServedUntilItsExpOnly()
    {
        // Arrange
        var time = new FakeTimeProvider(Start);
        var cache = new ValidatedTokenCache(time);
        Assert.False(cache.TryGet("a.b.c", out var key, out _));
        cache.Add(key, Caller, Start.AddMinutes(1));

        // Act
        var before = cache.TryGet("a.b.c", out _, out var cached);
        time.Advance(TimeSpan.FromMinutes(1));
        var atExp = cache.TryGet("a.b.c", out _, out _);

        // Assert
        Assert.True(before);
        Assert.Same(Caller, cached);
        Assert.False(atExp);
    }

    [Fact]
    public void TryGet_LongLivedToken_ServedForMaxAgeAtMost()
    {
        // Arrange: a token valid for an hour; a key the issuer withdraws must stop it within MaxAge.
        var time = new FakeTimeProvider(Start);
        var cache = new ValidatedTokenCache(time);
        cache.TryGet("a.b.c", out var key, out _);
        cache.Add(key, Caller, Start.AddHours(1));

        // Act
        time.Advance(ValidatedTokenCache.MaxAge - TimeSpan.FromSeconds(1));
        var justBefore = cache.TryGet("a.b.c", out _, out _);
        time.Advance(TimeSpan.FromSeconds(1));
        var atMaxAge = cache.TryGet("a.b.c", out _, out _);

        // Assert
        Assert.True(justBefore);
        Assert.False(atMaxAge);
    }

    [Fact]
    public void TryGet_AnotherTokenWithTheSameSignatureSegment_IsNotServed()
    {
        // Arrange: keyed by the whole token, so a changed payload under a known signature is validated again.
        var time = new FakeTimeProvider(Start);
        var cache = new ValidatedTokenCache(time);
        cache.TryGet("header.payload.signature", out var key, out _);
        cache.Add(key, Caller, Start.AddMinutes(1));

        // Act
        var forged = cache.TryGet("header.other-payload.signature", out _, out _);

        // Assert
        Assert.False(forged);
    }

    [Fact]
    public void Add_BeyondMaxEntries_CacheStaysBounded()
    {
        // Arrange
        var time = new FakeTimeProvider(Start);
        var cache = new ValidatedTokenCache(time);

        // Act
        for (var i = 0; i < ValidatedTokenCache.MaxEntries + 100; i++)
        {
            cache.TryGet($"h.p{i}.s", out var key, out _);
            cache.Add(key, Caller, Start.AddMinutes(1));
        }

        // Assert
        Assert.Equal(ValidatedTokenCache.MaxEntries, cache.Count);
    }
}
