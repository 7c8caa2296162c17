using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// What many receivers cost an instance, against the HTTPS fake vault and the real SecretClient with a fake clock: unknown
/// ids are remembered, first-use lookups are rate-limited, the cache is bounded and idle receivers stop being refreshed.
/// </summary>
public sealed class KeyVaultReceiverCacheTests
{
    [Fact]
    public async Task GetSigningKeysAsync_UnknownReceiver_UnknownAndSecondAskMakesNoVaultCall()
    {
        // Arrange
        await using var harness = await ReceiverVaultHarness.StartAsync();
        var ghost = ReceiverId.Parse("ghost");

        // Act
        var first = await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.GetSigningKeysAsync(ghost, CancellationToken.None).AsTask());
        var callsAfterFirst = harness.Server.Requests;
        var second = await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.GetSigningKeysAsync(ghost, CancellationToken.None).AsTask());
        await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.DescribeKeysAsync(ghost, CancellationToken.None).AsTask());

        // Assert
        ProblemAssert.NamesReceiver(ghost.Value, first);
        ProblemAssert.NamesReceiver(ghost.Value, second);
        Assert.True(callsAfterFirst >= 1, "the first ask should reach the vault");
        Assert.Equal(callsAfterFirst, harness.Server.Requests);
        Assert.Null(harness.Source.DescribeLoadedKeys(ghost));
        Assert.Single(harness.LogsWithEvent(3012));
    }

    [Fact]
    public async Task GetSigningKeysAsync_UnknownReceiverCreatedLater_FoundOnceItsUnknownEntryExpires()
    {
        // Arrange: ghost is unknown and remembered; then an operator creates its secret.
        await using var harness = await ReceiverVaultHarness.StartAsync(r => r.UnknownReceiverCacheDuration = TimeSpan.FromMinutes(5));
        var ghost = ReceiverId.Parse("ghost");
        await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.GetSigningKeysAsync(ghost, CancellationToken.None).AsTask());
        var version = harness.SetKey("ghost");

        // Act
        var stillRemembered = await Record.ExceptionAsync(() => harness.Source.GetSigningKeysAsync(ghost, CancellationToken.None).AsTask());
        harness.Time.Advance(TimeSpan.FromMinutes(5));
        var keys = await harness.Source.GetSigningKeysAsync(ghost, CancellationToken.None);

        // Assert
        ProblemAssert.Is(Problems.Types.UnknownReceiver, stillRemembered);
        Assert.Equal(version, keys.Current.KeyId);
    }

    [Fact]
    public async Task GetSigningKeysAsync_PastMaxUnknownReceivers_OldestUnknownForgottenFirst()
    {
        // Arrange: room for two unknown ids; x, y, then z are asked for.
        await using var harness = await ReceiverVaultHarness.StartAsync(r => r.MaxUnknownReceivers = 2);
        foreach (var id in new[] { "x", "y", "z" })
        {
            await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.GetSigningKeysAsync(ReceiverId.Parse(id), CancellationToken.None).AsTask());
        }

        // Act
        var before = harness.Server.Requests;
        await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.GetSigningKeysAsync(ReceiverId.Parse("z"), CancellationToken.None).AsTask());
        var zCalls = harness.Server.Requests - before;
        await ProblemAssert.ThrowsAsync(Problems.Types.UnknownReceiver, () => harness.Source.GetSigningKeysAsync(ReceiverId.Parse("x"), CancellationToken.None).AsTask());
        var xCalls = harness.Server.Requests - before - zCalls;

        // Assert: z still remembered; x, the oldest, was forgotten and asked of the vault again.
        Assert.Equal(0, zCalls);
        Assert.Equal(1, xCalls);
        Assert.Equal(2, harness.Source.UnknownReceivers);
    }

    [Fact]
    public async Task GetSigningKeysAsync_DefaultReceiversSecretMissing_UnavailableNotUnknown()
    {
        // Arrange: no secret KeyVault:SecretName at all.
        await using var harness = await ReceiverVaultHarness.StartAsync();
        var fallback = harness.Source.DefaultReceiver!;

        // Act
        var refused = await Record.ExceptionAsync(() => harness.Source.GetSigningKeysAsync(fallback, CancellationToken.None).AsTask());

        // Assert: an outage of the configured key (503), never "no such receiver" (404).
        var unavailable = ProblemAssert.Is(Problems.Types.KeyUnavailable, refused);
        ProblemAssert.NamesReceiver(fallback.Value, unavailable);
        Assert.Equal(0, harness.Source.UnknownReceivers);
    }

    [Fact]
    public async Task RandomReceiverFlood_TenThousandUnknownIds_VaultCallsWithinTheBucketRestLimited()
    {
        // Arrange: the default bucket (5 per second); 10 ms of fake time between requests, so 100 s pass in all.
        await using var harness = await ReceiverVaultHarness.StartAsync(captureLogs: false);
        var random = new Random(20261121);
        var start = harness.Time.GetUtcNow();
        int unknown = 0, limited = 0;
        var asked = new List<string>();

        // Act
        for (var i = 0; i < 10_000; i++)
        {
            var id = ReceiverId.Parse("r" + random.NextInt64().ToString("x", System.Globalization.CultureInfo.InvariantCulture));
            asked.Add(id.Value);
            try
            {
                await harness.Source.GetSigningKeysAsync(id, CancellationToken.None);
            }
            catch (ProblemException e) when (e.Is(Problems.Types.UnknownReceiver))
            {
                unknown++;
            }
            catch (ProblemException e) when (e.Is(Problems.Types.ReceiverLookupsLimited))
            {
                Assert.True(e.Problem.RetryAfter >= TimeSpan.FromSeconds(1));
                limited++;
            }

            harness.Time.Advance(TimeSpan.FromMilliseconds(10));
        }

        // Assert: one versions-list call (404) per lookup, plus at most one auth challenge.
        var elapsed = (harness.Time.GetUtcNow() - start).TotalSeconds;
        var bound = harness.Receivers.MaxLookupsPerSecond + (harness.Receivers.MaxLookupsPerSecond * elapsed);
        Assert.Equal(10_000, unknown + limited);
        Assert.True(unknown >= harness.Receivers.MaxLookupsPerSecond, $"only {unknown} lookups got through");
        Assert.True(unknown <= bound, $"{unknown} lookups in {elapsed} s exceed the bucket's {bound}");
        Assert.True(harness.Server.Requests - harness.Server.Challenges <= bound, $"{harness.Server.Requests} vault calls exceed {bound}");
        Assert.Equal(0, harness.LoadedCount(asked));
    }

    [Fact]
    public async Task GetSigningKeysAsync_CachedReceiver_TakesNoLookupToken()
    {
        // Arrange: one lookup per second; a takes the only token.
        await using var harness = await ReceiverVaultHarness.StartAsync(r => r.MaxLookupsPerSecond = 1);
        harness.SetKey("a");
        harness.SetKey("b");
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);

        // Act: a again and again, then b in the same second, then b a second later.
        for (var i = 0; i < 50; i++)
        {
            await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);
        }

        var limited = await Record.ExceptionAsync(() => harness.Source.GetSigningKeysAsync(ReceiverId.Parse("b"), CancellationToken.None).AsTask());
        harness.Time.Advance(TimeSpan.FromSeconds(1));
        var b = await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("b"), CancellationToken.None);

        // Assert
        var refused = ProblemAssert.Is(Problems.Types.ReceiverLookupsLimited, limited);
        Assert.Equal(TimeSpan.FromSeconds(1), refused.Problem.RetryAfter);
        Assert.NotNull(b.Current);
        Assert.Single(harness.LogsWithEvent(3013));
    }

    [Fact]
    public async Task GetSigningKeysAsync_PastMaxCachedReceivers_LeastRecentlyUsedEvictedAndNoLongerRefreshed()
    {
        // Arrange: room for two; a, b, then a again (so b is the least recently used), then c.
        await using var harness = await ReceiverVaultHarness.StartAsync(r => r.MaxCachedReceivers = 2);
        foreach (var id in new[] { "a", "b", "c" })
        {
            harness.SetKey(id);
        }

        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("b"), CancellationToken.None);
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);

        // Act
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("c"), CancellationToken.None);
        var listsBefore = harness.Server.ListReads;
        await harness.AdvanceAsync(harness.Options.RefreshInterval, TimeSpan.FromSeconds(30));
        var refreshes = harness.Server.ListReads - listsBefore;
        var callsBeforeA = harness.Server.Requests;
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);

        // Assert: two receivers refreshed once each (b's timer stopped), a still cached, b evicted (logged).
        Assert.Equal(2, harness.LoadedCount("a", "b", "c"));
        Assert.Null(harness.Source.DescribeLoadedKeys(ReceiverId.Parse("b")));
        Assert.Equal(2, refreshes);
        Assert.Equal(callsBeforeA, harness.Server.Requests);
        Assert.Equal(["b"], harness.LogsWithEvent(3010).Select(e => e.Message.Split(' ')[1]));
    }

    [Fact]
    public async Task IdleSweep_ReceiversUnusedPastIdleTimeout_DroppedAndNoLongerRefreshed()
    {
        // Arrange: a and b cached; only a keeps being used.
        await using var harness = await ReceiverVaultHarness.StartAsync(r => r.IdleTimeout = TimeSpan.FromMinutes(20));
        harness.SetKey("a");
        harness.SetKey("b");
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("b"), CancellationToken.None);
        Func<Task> useA = async () => await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);

        // Act: 30 minutes (b idle past 20 minutes, swept by 25), then one more hour counted.
        await harness.AdvanceAsync(TimeSpan.FromMinutes(30), TimeSpan.FromSeconds(30), useA);
        var listsBefore = harness.Server.ListReads;
        await harness.AdvanceAsync(TimeSpan.FromHours(1), TimeSpan.FromSeconds(30), useA);
        var refreshes = harness.Server.ListReads - listsBefore;

        // Assert: only a is refreshed: one list per refresh, every 4-5 minutes (80-100 % of 5 minutes).
        Assert.Equal(1, harness.LoadedCount("a", "b"));
        Assert.NotNull(harness.Source.DescribeLoadedKeys(ReceiverId.Parse("a")));
        Assert.InRange(refreshes, 12, 16);
        Assert.Single(harness.LogsWithEvent(3011));
    }

    [Fact]
    public async Task GetSigningKeysAsync_PastBoundWhileLoading_ReceiverInUseNotEvicted()
    {
        // Arrange: room for one; a's first load hangs in the vault (until the client's timeout and retry).
        await using var harness = await ReceiverVaultHarness.StartAsync(r => r.MaxCachedReceivers = 1);
        var aVersion = harness.SetKey("a");
        var bVersion = harness.SetKey("b");
        harness.Server.Fault = FakeKeyVaultFault.Hang;
        var loadingA = harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None).AsTask();
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (harness.Server.Faulted == 0 && DateTime.UtcNow < deadline)
        {
            await Task.Delay(10);
        }

        // Act: b arrives while a's request waits on a's source; then a's load completes.
        harness.Server.Fault = FakeKeyVaultFault.None;
        var b = await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("b"), CancellationToken.None);
        var bHeldWhileALoads = harness.Source.DescribeLoadedKeys(ReceiverId.Parse("b"));
        var a = await loadingA.WaitAsync(TimeSpan.FromSeconds(30));
        var callsBeforeAgain = harness.Server.Requests;
        await harness.Source.GetSigningKeysAsync(ReceiverId.Parse("a"), CancellationToken.None);

        // Assert: neither request failed; b, not the a in use, made way once b's request was done; a stayed cached.
        Assert.Equal(aVersion, a.Current.KeyId);
        Assert.Equal(bVersion, b.Current.KeyId);
        Assert.Null(bHeldWhileALoads);
        Assert.Equal(1, harness.LoadedCount("a", "b"));
        Assert.NotNull(harness.Source.DescribeLoadedKeys(ReceiverId.Parse("a")));
        Assert.Equal(callsBeforeAgain, harness.Server.Requests);
        Assert.Equal(["b"], harness.LogsWithEvent(3010).Select(e => e.Message.Split(' ')[1]));
    }
}
