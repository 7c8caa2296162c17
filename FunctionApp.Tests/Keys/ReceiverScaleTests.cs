using System.Diagnostics;
using System.Globalization;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// Many receivers against the real SecretClient and the HTTPS fake vault, with the default settings and a fake clock:
/// bounds the Key Vault calls a receiver's first use and its refreshes cost and the memory a cached receiver keeps (the
/// figures docs/keys.md quotes); first-use latency on loopback is printed, not asserted.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class ReceiverScaleTests
{
    private const int InVault = 10_000;
    private const int Cached = 1_000;

    // Retained bytes per cached receiver (measured 2.5-6 KB): a source, its key set and its timer, with room to spare.
    private const int MaxBytesPerReceiver = 16 * 1024;

    private readonly ITestOutputHelper _output;

    public ReceiverScaleTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public async Task ReceiverScale_TenThousandReceiversThousandCached_TwoCallsPerFirstUseAndRefreshBoundedMemoryAllListed()
    {
        // Arrange: 10,000 receivers in the vault; the product's defaults (a 15-minute refresh), not the tests' faster ones.
        var defaults = new KeyVaultOptions();
        await using var harness = await ReceiverVaultHarness.StartAsync(
            vault: o => o.RefreshInterval = defaults.RefreshInterval, captureLogs: false);
        var ids = Enumerable.Range(0, InVault).Select(i => ReceiverId.Parse($"r{i:D5}")).ToList();
        foreach (var id in ids)
        {
            harness.SetKey(id.Value);
        }

        var tokenEvery = TimeSpan.FromSeconds(1.0 / harness.Receivers.MaxLookupsPerSecond);
        await harness.Source.GetSigningKeysAsync(ids[0], CancellationToken.None); // the connection and the auth challenge, outside the numbers
        harness.Time.Advance(tokenEvery);

        // Act 1: first use of 1,000 more receivers, one lookup token apart on the fake clock.
        var latencies = new List<double>(Cached);
        var firstUseCallsBefore = harness.Server.Requests;
        var firstUseListsBefore = harness.Server.ListReads;
        var memoryBefore = GC.GetTotalMemory(forceFullCollection: true);
        for (var i = 1; i <= Cached; i++)
        {
            var started = Stopwatch.GetTimestamp();
            await harness.Source.GetSigningKeysAsync(ids[i], CancellationToken.None);
            latencies.Add(Stopwatch.GetElapsedTime(started).TotalMilliseconds);
            harness.Time.Advance(tokenEvery);
        }

        var firstUseCalls = harness.Server.Requests - firstUseCallsBefore;
        var firstUseLists = harness.Server.ListReads - firstUseListsBefore;
        var memoryAfter = GC.GetTotalMemory(forceFullCollection: true);
        var bytesPerReceiver = (memoryAfter - memoryBefore) / (double)Cached;

        // Act 2: one hour with every cached receiver used every ten minutes (cache hits), counting Key Vault calls.
        var callsBefore = harness.Server.Requests;
        var listsBefore = harness.Server.ListReads;
        var readsBefore = harness.Server.SecretReads;
        var step = 0;
        await harness.AdvanceAsync(TimeSpan.FromHours(1), TimeSpan.FromSeconds(10), async () =>
        {
            if (++step % 60 == 0)
            {
                for (var i = 0; i <= Cached; i++)
                {
                    await harness.Source.GetSigningKeysAsync(ids[i], CancellationToken.None);
                }
            }
        });
        var calls = harness.Server.Requests - callsBefore;
        var refreshes = harness.Server.ListReads - listsBefore;
        var reads = harness.Server.SecretReads - readsBefore;

        // Act 3: list every receiver through Key Vault's pages.
        var listed = 0;
        var pages = 0;
        string? token = null;
        do
        {
            var page = await harness.Source.ListReceiversAsync(token, 25, CancellationToken.None);
            listed += page.Receivers.Count;
            token = page.NextPageToken;
            pages++;
        }
        while (token is not null && pages < 1_000);

        // Assert: a first use costs one list of versions and one read of the current one; a cached receiver keeps at
        // most MaxBytesPerReceiver. Each receiver refreshed every 12-15 minutes (80-100 % of 15, each up to one 10 s step
        // late): 4 or 5 times in the hour for most, never more than 5 or fewer than 3; two calls each, nothing else.
        latencies.Sort();
        var perMinute = calls / (double)(Cached + 1) / 60;
        _output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"first use: p50 {latencies[Cached / 2]:F2} ms, p99 {latencies[(Cached * 99) / 100]:F2} ms, max {latencies[^1]:F2} ms over {Cached} receivers"));
        _output.WriteLine($"first use: {firstUseCalls} Key Vault calls for {Cached} receivers");
        _output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"steady state: {calls} Key Vault calls in 1 h for {Cached + 1} cached receivers = {perMinute:F4} calls/min per receiver ({refreshes} refreshes)"));
        _output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"memory: {bytesPerReceiver:F0} bytes per cached receiver ({memoryAfter - memoryBefore} bytes for {Cached})"));
        _output.WriteLine($"listing: {listed} receivers in {pages} pages");
        Assert.Equal(2 * Cached, firstUseCalls);
        Assert.Equal(Cached, firstUseLists);
        Assert.True(bytesPerReceiver <= MaxBytesPerReceiver, $"{bytesPerReceiver:F0} bytes retained per cached receiver, over {MaxBytesPerReceiver}");
        Assert.Equal(Cached + 1, harness.LoadedCount(ids.Select(id => id.Value)));
        Assert.InRange(refreshes, 3 * (Cached + 1), 5 * (Cached + 1));
        Assert.Equal(refreshes, reads);
        Assert.Equal(2 * refreshes, calls);
        Assert.Equal(InVault, listed);
        Assert.Equal(InVault / 25, pages);
    }
}
