using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Http;

/// <summary>
/// <c>GET /api/receivers/{receiver}/jwks</c>: an Ed25519 receiver's public keys as RFC 8037 JWKs; the same 404 for an
/// unknown receiver and an HMAC one; validators and a cache lifetime; lookups an anonymous flood cannot multiply.
/// </summary>
public sealed class PublicKeysHandlerTests
{
    private const string Seed = "6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbc=";

    [Fact]
    public async Task HandleAsync_Ed25519Receiver_JwkSetWithOkpKeyWhpkAndCacheHeaders()
    {
        // Arrange
        var handler = Handler(Local(), new FakeTimeProvider());
        var exchange = Get();

        // Act
        await exchange.ExecuteAsync(await handler.HandleAsync(At(exchange, "partner-c")));

        // Assert
        Assert.Equal(StatusCodes.Status200OK, exchange.Status);
        Assert.Equal("application/jwk-set+json", exchange.Context.Response.ContentType);
        var key = Assert.Single(exchange.Json["keys"]!);
        Assert.Equal("OKP", (string?)key["kty"]);
        Assert.Equal("Ed25519", (string?)key["crv"]);
        Assert.Equal("1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4", (string?)key["x"]);
        Assert.Equal("whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=", (string?)key["whpk"]);
        Assert.Equal("local", (string?)key["kid"]);
        Assert.Equal("current", (string?)key["state"]);
        Assert.Equal("public, max-age=900", exchange.ResponseHeaders.CacheControl.ToString());
        Assert.Matches("^\"[0-9a-f]{32}\"$", exchange.ResponseHeaders.ETag.ToString());
        Assert.DoesNotContain(Seed[..40], exchange.Body, StringComparison.Ordinal);
    }

    [Fact]
    public async Task HandleAsync_IfNoneMatchTheCurrentTag_304WithoutABody()
    {
        // Arrange
        var handler = Handler(Local(), new FakeTimeProvider());
        var first = Get();
        await first.ExecuteAsync(await handler.HandleAsync(At(first, "partner-c")));
        var again = Get();
        again.Request.Headers.IfNoneMatch = first.ResponseHeaders.ETag;

        // Act
        await again.ExecuteAsync(await handler.HandleAsync(At(again, "partner-c")));

        // Assert
        Assert.Equal(StatusCodes.Status304NotModified, again.Status);
        Assert.Empty(again.Body);
        Assert.Equal(first.ResponseHeaders.ETag.ToString(), again.ResponseHeaders.ETag.ToString());
    }

    [Fact]
    public async Task HandleAsync_UnknownAndHmacReceiverProbeAttack_TheSame404SaveTheName()
    {
        // Arrange
        var handler = Handler(Local(), new FakeTimeProvider());
        var unknown = Get();
        var hmac = Get();

        // Act
        await unknown.ExecuteAsync(await handler.HandleAsync(At(unknown, "partner-x")));
        await hmac.ExecuteAsync(await handler.HandleAsync(At(hmac, "partner-a")));

        // Assert: one answer, so a set request cannot tell an HMAC receiver from none.
        Assert.Equal(StatusCodes.Status404NotFound, unknown.Status);
        Assert.Equal(StatusCodes.Status404NotFound, hmac.Status);
        Assert.Equal(Problems.Types.UnknownReceiver, (string?)hmac.Json["type"]);
        var (a, b) = (unknown.Json, hmac.Json);
        a.Remove("traceId");
        b.Remove("traceId");
        Assert.Equal(a.ToString().Replace("partner-x", "partner-a", StringComparison.Ordinal), b.ToString());
        Assert.Equal(unknown.ResponseHeaders.Count, hmac.ResponseHeaders.Count);
    }

    [Theory]
    [InlineData("")]
    [InlineData("..")]
    [InlineData("a b")]
    public async Task HandleAsync_MalformedReceiverAttack_400NamingTheRule(string receiver)
    {
        // Arrange
        var handler = Handler(Local(), new FakeTimeProvider());
        var exchange = Get();

        // Act
        await exchange.ExecuteAsync(await handler.HandleAsync(At(exchange, receiver)));

        // Assert
        Assert.Equal(StatusCodes.Status400BadRequest, exchange.Status);
        Assert.Contains("a receiver id is", (string?)exchange.Json["detail"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task HandleAsync_FloodOfUnknownReceiversAttack_OneLookupPerSecondTheRest429()
    {
        // Arrange: a source that loads nothing ahead, so every receiver costs a lookup.
        var time = new FakeTimeProvider();
        var source = new CountingSource();
        var handler = Handler(source, time);
        var statuses = new List<int>();

        // Act: 100 different names in one second, then one more a second later.
        for (var i = 0; i < 100; i++)
        {
            var exchange = Get();
            await exchange.ExecuteAsync(await handler.HandleAsync(At(exchange, $"probe-{i}")));
            statuses.Add(exchange.Status);
        }

        time.Advance(TimeSpan.FromSeconds(1));
        var later = Get();
        await later.ExecuteAsync(await handler.HandleAsync(At(later, "probe-later")));

        // Assert
        Assert.Equal(2, source.Lookups);
        Assert.Equal(1, statuses.Count(s => s == StatusCodes.Status404NotFound));
        Assert.Equal(99, statuses.Count(s => s == StatusCodes.Status429TooManyRequests));
        Assert.Equal(StatusCodes.Status404NotFound, later.Status);
    }

    private static PublicKeysHandler Handler(IReceiverKeySource keys, TimeProvider time) =>
        new(keys, TimeSpan.FromMinutes(15), time, TestServices.Metrics(), NullLogger<PublicKeysHandler>.Instance);

    private static ConfigurationReceiverKeySource Local()
    {
        var local = new LocalKeyOptions();
        local.LocalKeys["partner-a"] = "fcBwc7CmsvOwrzWPyQgBaPqJitcrfxEq7xVHYQj3WtY=";
        local.LocalKeys["partner-c"] = "whsk_" + Seed;
        return new ConfigurationReceiverKeySource(Options.Create(local), Options.Create(new ReceiverOptions { DefaultReceiver = null }));
    }

    // The request as a host hands it over: the path names the receiver.
    private static HttpRequest At(HttpExchange exchange, string receiver)
    {
        exchange.Request.Path = "/api/receivers/" + receiver + "/jwks";
        return exchange.Request;
    }

    private static HttpExchange Get()
    {
        var exchange = HttpExchange.Post([], contentType: null);
        exchange.Request.Method = HttpMethods.Get;
        exchange.Request.ContentLength = null;
        return exchange;
    }

    private sealed class CountingSource : IReceiverKeySource
    {
        public int Lookups { get; private set; }

        public ReceiverId? DefaultReceiver => null;

        public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
        {
            Lookups++;
            throw Problems.UnknownReceiver(receiver.Value);
        }

        public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw new NotSupportedException();

        public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw new NotSupportedException();

        public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) => throw new NotSupportedException();
    }
}
