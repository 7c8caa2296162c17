using Azure.Data.Tables;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Callers;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Callers;

/// <summary>
/// <see cref="CallerGrants"/> over <see cref="TableGrantStore"/> on Azurite's table service (one table per test), on a
/// clock the test moves: grants pass, a receiver not granted is refused by name, a revoked grant stops within the cache
/// duration, a missing table is a 503, and the cache stays bounded.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class CallerGrantsTests(AzuriteFixture azurite) : IAsyncLifetime
{
    private static readonly TimeSpan CacheDuration = TimeSpan.FromMinutes(1);

    private readonly FakeTimeProvider _clock = new(new DateTimeOffset(2026, 1, 1, 0, 0, 0, TimeSpan.Zero));
    private readonly TableClient _table = new TableServiceClient(azurite.ConnectionString).GetTableClient("grants" + Guid.NewGuid().ToString("N"));
    private CountingStore _store = null!;

    public async Task InitializeAsync()
    {
        Assert.Equal(azurite.TableServiceUri.Port, new TableServiceClient(azurite.ConnectionString).Uri.Port);
        await _table.CreateAsync();
        _store = new CountingStore(new TableGrantStore(_table, NullLogger<TableGrantStore>.Instance));
    }

    public async Task DisposeAsync() => await _table.DeleteAsync();

    [Fact]
    public async Task EnsureGrantedAsync_GrantedReceivers_Pass()
    {
        // Arrange
        await GrantAsync(TestIssuer.CallerObjectId, "partner-a");
        await GrantAsync(TestIssuer.CallerObjectId, "partner-b");
        var grants = Grants();

        // Act
        await grants.EnsureGrantedAsync(Caller(), [ReceiverId.Parse("partner-a"), ReceiverId.Parse("partner-b")], CancellationToken.None);

        // Assert: both receivers from one read of the caller's partition.
        Assert.Equal(1, _store.Reads);
    }

    [Fact]
    public async Task EnsureGrantedAsync_ReceiverNotGranted_IsRefusedNamingIt()
    {
        // Arrange: granted partner-a only; another caller holds partner-b.
        await GrantAsync(TestIssuer.CallerObjectId, "partner-a");
        await GrantAsync("7a1e0000-0000-4000-8000-0000000000ff", "partner-b");
        var grants = Grants();

        // Act
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.ReceiverNotGranted, () =>
            grants.EnsureGrantedAsync(Caller(), [ReceiverId.Parse("partner-a"), ReceiverId.Parse("partner-b")], CancellationToken.None).AsTask());

        // Assert
        ProblemAssert.NamesReceiver("partner-b", refused);
        Assert.Contains("'partner-b'", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task EnsureGrantedAsync_RevokedGrant_PassesUntilTheCacheDurationThenIsRefused()
    {
        // Arrange: the grant is read once, then revoked (the entity deleted).
        await GrantAsync(TestIssuer.CallerObjectId, "partner-a");
        var grants = Grants();
        ReceiverId[] receivers = [ReceiverId.Parse("partner-a")];
        await grants.EnsureGrantedAsync(Caller(), receivers, CancellationToken.None);
        await _table.DeleteEntityAsync(TestIssuer.CallerObjectId, "partner-a");

        // Act
        _clock.Advance(CacheDuration - TimeSpan.FromSeconds(1));
        await grants.EnsureGrantedAsync(Caller(), receivers, CancellationToken.None);
        var readsWhileCached = _store.Reads;
        _clock.Advance(TimeSpan.FromSeconds(1));
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.ReceiverNotGranted, () => grants.EnsureGrantedAsync(Caller(), receivers, CancellationToken.None).AsTask());

        // Assert
        Assert.Equal(1, readsWhileCached);
        Assert.Equal(2, _store.Reads);
        ProblemAssert.NamesReceiver("partner-a", refused);
    }

    [Fact]
    public async Task EnsureGrantedAsync_TableMissing_IsUnavailableAndTheFailureIsNotCached()
    {
        // Arrange
        await _table.DeleteAsync();
        var grants = Grants();
        ReceiverId[] receivers = [ReceiverId.Parse("partner-a")];

        // Act
        await ProblemAssert.ThrowsAsync(Problems.Types.GrantsUnavailable, () => grants.EnsureGrantedAsync(Caller(), receivers, CancellationToken.None).AsTask());
        await _table.CreateAsync();
        await GrantAsync(TestIssuer.CallerObjectId, "partner-a");
        await grants.EnsureGrantedAsync(Caller(), receivers, CancellationToken.None);

        // Assert: the next call read the table again, without waiting out the cache duration.
        Assert.Equal(2, _store.Reads);
    }

    [Fact]
    public async Task EnsureGrantedAsync_ManyCallers_CacheStaysBoundedAtMaxCachedCallers()
    {
        // Arrange: 10 cached callers at most; 50 callers, each granted the same receiver.
        const int max = 10;
        const int callers = 50;
        var ids = Enumerable.Range(1, callers).Select(i => $"7a1e0000-0000-4000-8000-{i:x12}").ToList();
        foreach (var id in ids)
        {
            await GrantAsync(id, "partner-a");
        }

        var grants = Grants(max);
        ReceiverId[] receivers = [ReceiverId.Parse("partner-a")];

        // Act: every caller twice, in the same order, on the same clock instant (nothing expires).
        foreach (var id in ids.Concat(ids))
        {
            await grants.EnsureGrantedAsync(Caller(id), receivers, CancellationToken.None);
        }

        // Assert: an unbounded cache would answer the second round without a read; a bounded one holds at most 10.
        Assert.InRange(_store.Reads, (2 * callers) - max, 2 * callers);
        Assert.InRange(CachedCallers(grants), 1, max);
    }

    [Fact]
    public async Task EnsureGrantedAsync_ConcurrentFirstCallsOfOneCaller_ReadTheGrantsOnce()
    {
        // Arrange: two calls of one caller miss the cache together; the store holds its first read open for a while
        // (up to 1 s) waiting to see whether a second read starts beside it.
        var store = new OverlapDetectingStore();
        var grants = new CallerGrants(store, Options.Create(new GrantOptions { CacheDuration = CacheDuration }), _clock);
        using var together = new Barrier(2);
        Task Call() => Task.Factory.StartNew(
            () =>
            {
                together.SignalAndWait();
                grants.EnsureGrantedAsync(Caller(), [ReceiverId.Parse("partner-a")], CancellationToken.None).AsTask().GetAwaiter().GetResult();
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        // Act
        await Task.WhenAll(Call(), Call());

        // Assert: the second call shared the first one's read.
        Assert.Equal(1, store.Reads);
    }

    private CallerGrants Grants(int maxCachedCallers = 10_000) =>
        new(_store, Options.Create(new GrantOptions { CacheDuration = CacheDuration, MaxCachedCallers = maxCachedCallers }), _clock);

    private static CallerIdentity Caller(string oid = TestIssuer.CallerObjectId) =>
        new(oid, TestIssuer.CallerAppId, TestIssuer.TenantId, [AppRoles.Sign]);

    // The cache's size, read from the instance: the bound is the behaviour under test and has no public counter.
    private static int CachedCallers(CallerGrants grants) =>
        ((System.Collections.ICollection)typeof(CallerGrants).GetField("_cache", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!.GetValue(grants)!).Count;

    private Task GrantAsync(string oid, string receiver) =>
        _table.AddEntityAsync(new TableEntity(oid, receiver) { ["GrantedBy"] = "tests", ["GrantedAt"] = DateTimeOffset.UtcNow });

    /// <summary>Grants partner-a; a read waits up to 1 s for another read to start beside it, and counts them all.</summary>
    private sealed class OverlapDetectingStore : IGrantStore
    {
        private int _reads;

        public int Reads => Volatile.Read(ref _reads);

        public Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _reads);
            SpinWait.SpinUntil(() => Reads > 1, TimeSpan.FromSeconds(1));
            return Task.FromResult<IReadOnlySet<string>>(new HashSet<string> { "partner-a" });
        }
    }

    /// <summary>The table store, with its reads counted.</summary>
    private sealed class CountingStore(IGrantStore inner) : IGrantStore
    {
        private int _reads;

        public int Reads => Volatile.Read(ref _reads);

        public Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _reads);
            return inner.GetReceiversAsync(objectId, max, cancellationToken);
        }
    }
}
