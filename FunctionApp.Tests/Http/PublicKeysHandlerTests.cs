using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Http;

/// <summary>
/// <c>GET /api/receivers/{receiver}/jwks</c>: an Ed25519 receiver's public keys as RFC 8037 JWKs and nothing private; the
/// same bytes for an unknown receiver and an HMAC one, whatever the lookup bucket holds; validators and a cache lifetime;
/// lookups an anonymous flood cannot multiply.
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
    }

    [Fact]
    public async Task HandleAsync_Ed25519Receiver_EachJwkHoldsExactlyThePublicMembersAndNoPrivateByte()
    {
        // Arrange
        var handler = Handler(Local(), new FakeTimeProvider());
        var exchange = Get();

        // Act
        await exchange.ExecuteAsync(await handler.HandleAsync(At(exchange, "partner-c")));

        // Assert: RFC 8037's public members and ours, nothing else (no "d", RFC 8037's name for the seed).
        var root = exchange.Json;
        Assert.Equal(["keys"], root.Properties().Select(p => p.Name));
        var key = Assert.IsType<JObject>(Assert.Single(root["keys"]!));
        Assert.Equal(["alg", "crv", "kid", "kty", "state", "use", "whpk", "x"], key.Properties().Select(p => p.Name).Order(StringComparer.Ordinal));

        // And no encoding of the seed (base64, base64url, hex, or a run of any) in the body or a header.
        var answer = exchange.Body + "\n" + string.Join("\n", exchange.ResponseHeaders.Select(h => h.Key + ": " + h.Value));
        KeyMaterialAssert.Absent(answer, Convert.FromBase64String(Seed));
    }

    [Fact]
    public async Task HandleAsync_Ed25519ReceiverLoadedWithTheBucketEmpty_TheSetWithoutALookup()
    {
        // Arrange: one probe empties the lookup bucket (the clock is frozen).
        var handler = Handler(Local(), new FakeTimeProvider());
        var probe = Get();
        await probe.ExecuteAsync(await handler.HandleAsync(At(probe, "partner-x")));
        var exchange = Get();

        // Act
        await exchange.ExecuteAsync(await handler.HandleAsync(At(exchange, "partner-c")));

        // Assert
        Assert.Equal(StatusCodes.Status200OK, exchange.Status);
        Assert.Single(exchange.Json["keys"]!);
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

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task HandleAsync_UnknownAndHmacReceiverProbeAttack_TheSameAnswerByteForByte(bool bucketEmpty)
    {
        // Arrange: both requests in one trace (so the problem's traceId is the same) and with the bucket alike: full
        // before each, or emptied by a probe beforehand.
        var time = new FakeTimeProvider();
        var handler = Handler(Local(), time);
        using var trace = new Activity("probe").Start();
        if (bucketEmpty)
        {
            var probe = Get();
            await probe.ExecuteAsync(await handler.HandleAsync(At(probe, "partner-y")));
        }

        var unknown = Get();
        var hmac = Get();

        // Act
        await unknown.ExecuteAsync(await handler.HandleAsync(At(unknown, "partner-x")));
        if (!bucketEmpty)
        {
            time.Advance(TimeSpan.FromSeconds(1));
        }

        await hmac.ExecuteAsync(await handler.HandleAsync(At(hmac, "partner-a")));

        // Assert: one answer, so a set request cannot tell an HMAC receiver from none.
        Assert.Equal(bucketEmpty ? StatusCodes.Status429TooManyRequests : StatusCodes.Status404NotFound, hmac.Status);
        Assert.Equal(unknown.Status, hmac.Status);
        Assert.Equal(string.Join("\n", unknown.ResponseHeaders.OrderBy(h => h.Key)), string.Join("\n", hmac.ResponseHeaders.OrderBy(h => h.Key)));
        Assert.Equal(unknown.Body, hmac.Body);
        Assert.DoesNotContain("partner-", hmac.Body, StringComparison.Ordinal);
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

    [Fact]
    public async Task HandleAsync_ReceiverKeyUnreadable_503NamingNeitherTheReceiverNorItsSecret()
    {
        // Arrange: a source whose failure names the receiver and its secret, as the Key Vault source's do.
        var handler = Handler(new CountingSource(Problems.KeyUnavailable("Key Vault secret 'receiver-partner-q' of receiver 'partner-q' is unreadable.", TimeSpan.FromSeconds(5), "partner-q")), new FakeTimeProvider());
        var exchange = Get();

        // Act
        await exchange.ExecuteAsync(await handler.HandleAsync(At(exchange, "partner-q")));

        // Assert: the anonymous answer carries the fixed detail only.
        Assert.Equal(StatusCodes.Status503ServiceUnavailable, exchange.Status);
        Assert.Equal("No signing key could be obtained; try again later.", (string?)exchange.Json["detail"]);
        Assert.DoesNotContain("partner-q", exchange.Body, StringComparison.Ordinal);
        Assert.False(exchange.ResponseHeaders.ContainsKey("X-Receiver"));
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

    private sealed class CountingSource(ProblemException? failure = null) : IReceiverKeySource
    {
        public int Lookups { get; private set; }

        public ReceiverId? DefaultReceiver => null;

        public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
        {
            Lookups++;
            throw failure ?? Problems.UnknownReceiver(receiver.Value);
        }

        public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw new NotSupportedException();

        public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw new NotSupportedException();

        public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) => throw new NotSupportedException();
    }
}
