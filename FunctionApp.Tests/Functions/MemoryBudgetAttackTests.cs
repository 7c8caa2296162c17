using System.Diagnostics;
using System.Globalization;
using System.Text;
using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Queues;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Azure.Storage.Blobs;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.IO;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// The memory budget in the WebJobs host with the queue processor from the same container (one budget for both), on
/// Azurite: hostile 16 MiB envelopes over HTTP, read slowly, and by claim check cannot take the instance's memory.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class MemoryBudgetAttackTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    private const int BodyBytes = 16 * 1024 * 1024;
    private const long Budget = 128L * 1024 * 1024;

    [Fact]
    public async Task SignAndQueue_MemoryExhaustionAttack_BudgetHoldsAndTheServiceStillAnswers()
    {
        // Arrange: the memory attack. The raw-U+0001 body is now a 400 after a few KB, so the HTTP clients send its
        // worst still-valid form (every U+0001 escaped: 16 MiB in, 16 MiB canonical) and read the answer slowly; twelve
        // claim checks hold the same envelope.
        var names = QueueNames();
        await using var host = await FunctionsTestHost.StartAsync(Settings(names), typeof(SignFunction));
        var pool = host.GetService<RecyclableMemoryStreamManager>();
        var budget = host.GetService<EnvelopeMemoryBudget>();
        var processor = host.GetService<QueueSigningProcessor>();
        var body = AttackBodies.ControlCharacterEnvelope(BodyBytes, "escaped");
        var claims = new BlobServiceClient(azurite.ConnectionString).GetBlobContainerClient(names.Claims);
        await claims.CreateIfNotExistsAsync();
        await claims.GetBlobClient("hostile.json").UploadAsync(new BinaryData(body));
        var claimMessage = Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"hostile.json\"}}");
        using var sampler = new MemorySampler(pool, budget);

        // Act: 8 slow HTTP clients and 12 queue messages at once; a small request in the middle of it.
        var http = Enumerable.Range(0, 8).Select(_ => SignSlowlyAsync(host, body)).ToList();
        var queue = Enumerable.Range(0, 12).Select(i => Task.Run(() => SignQueuedAsync(processor, $"hostile-{i}", claimMessage))).ToList();
        await Task.Delay(500);
        var during = await SignSmallAsync(host);
        var httpOutcomes = await Task.WhenAll(http);
        var queueOutcomes = await Task.WhenAll(queue);
        var after = await SignSmallAsync(host);
        sampler.Stop();

        // Assert
        output.WriteLine($"HTTP: {string.Join(", ", httpOutcomes)}; queue: {string.Join(", ", queueOutcomes)}");
        output.WriteLine(sampler.Describe());
        Assert.All(httpOutcomes, o => Assert.Contains(o, new[] { "200-cut", "200", "503" }));
        Assert.All(queueOutcomes, o => Assert.Contains(o, new[] { "signed", "released" }));
        Assert.Contains("released", queueOutcomes.Concat(httpOutcomes.Select(o => o == "503" ? "released" : o)));
        Assert.True(sampler.PeakBudget <= Budget, $"budget {sampler.PeakBudget:N0} > {Budget:N0}");

        // Pool bytes in use stay within the budget, but for the blocks each of the 20 flows holds before it is charged.
        Assert.True(sampler.PeakPool <= Budget + (20 * 2 * 64 * 1024), $"pool peaked at {sampler.PeakPool:N0} bytes");

        // Unbudgeted, the 8 HTTP requests alone took +1.15 GB; a budgeted byte brings at most two more (strings).
        Assert.True(sampler.PeakWorkingSetGrowth <= (4 * Budget) + (256L * 1024 * 1024), $"working set grew by {sampler.PeakWorkingSetGrowth:N0} bytes");
        Assert.True(during is 200 or 503, $"the small request during the attack got {during}");
        Assert.Equal(200, after);
        Assert.Equal(0, budget.InUse);
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
    }

    [Fact]
    public async Task SignQueued_MemoryBudgetSpent_ThrowsMessageReleasedAndHoldsNoBudget()
    {
        // Arrange: the budget is taken by something else in flight.
        var names = QueueNames();
        await using var host = await FunctionsTestHost.StartAsync(Settings(names), typeof(SignFunction));
        var budget = host.GetService<EnvelopeMemoryBudget>();
        var pool = host.GetService<RecyclableMemoryStreamManager>();
        var claims = new BlobServiceClient(azurite.ConnectionString).GetBlobContainerClient(names.Claims);
        await claims.CreateIfNotExistsAsync();
        var seed = Vector.Load("seed-3000-widgets").Input;
        await claims.GetBlobClient("seed.json").UploadAsync(new BinaryData(seed));
        var message = new SigningQueueMessage("m1", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"seed.json\"}}"));
        var holder = budget.Lease();
        holder.Cover(Budget - (512 * 1024));

        // Act
        var error = await Assert.ThrowsAsync<MessageReleasedException>(() =>
            host.GetService<QueueSigningProcessor>().SignAsync(message, CancellationToken.None));
        holder.Dispose();

        // Assert: released (not rejected, not failed), with when to come back, and nothing left charged or pooled.
        Assert.Equal(EnvelopeMemoryBudget.RetryAfter, error.RetryAfter);
        Assert.Contains(MemoryBudgetOptions.MaxBytesInFlightSetting, error.Message, StringComparison.Ordinal);
        Assert.Equal(0, budget.InUse);
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
        Assert.Contains(host.Logs.Entries, e => e.EventId.Id == 1002);
    }

    private static async Task<string> SignSlowlyAsync(FunctionsTestHost host, byte[] body)
    {
        var request = TestRequests.Post("/api/sign", body, query: "?output=canonical");
        var slow = new SlowReaderStream(TimeSpan.FromMilliseconds(40));
        request.HttpContext.Response.Body = slow;
        using var scope = host.Services.CreateScope();
        var function = ActivatorUtilities.CreateInstance<SignFunction>(scope.ServiceProvider);
        var result = await function.RunAsync(request);
        await result.ExecuteResultAsync(new ActionContext(request.HttpContext, new RouteData(), new ActionDescriptor()));
        var status = request.HttpContext.Response.StatusCode;
        return status == 200 && slow.Written < body.Length ? "200-cut" : status.ToString(CultureInfo.InvariantCulture);
    }

    private static async Task<string> SignQueuedAsync(QueueSigningProcessor processor, string id, byte[] message)
    {
        try
        {
            await processor.SignAsync(new SigningQueueMessage(id, 1, null, message), CancellationToken.None);
            return "signed";
        }
        catch (MessageReleasedException)
        {
            return "released";
        }
    }

    private static async Task<int> SignSmallAsync(FunctionsTestHost host)
    {
        var vector = Vector.Load("one-widget");
        var response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input));
        if (response.Status == 200)
        {
            Assert.Equal(vector.SignatureHex, (string?)response.Json["signature"]);
        }
        else
        {
            Assert.Equal(ProblemTypes.MemoryBudget, (string?)response.Json["type"]);
            Assert.Equal("1", response.Header("Retry-After"));
        }

        return response.Status;
    }

    private static (string Claims, string Canonical) QueueNames()
    {
        var prefix = "m" + Guid.NewGuid().ToString("N")[..12];
        return (prefix + "-claims", prefix + "-canonical");
    }

    private Dictionary<string, string?> Settings((string Claims, string Canonical) names) => new()
    {
        ["Signing:LocalKey"] = Vector.KeyBase64,
        ["AzureWebJobsStorage"] = azurite.ConnectionString,
        ["WidgetStorage"] = azurite.ConnectionString,
        ["WidgetClaimsContainer"] = names.Claims,
        ["WidgetCanonicalContainer"] = names.Canonical,
        ["Http:MaxRequestBodyBytes"] = BodyBytes.ToString(CultureInfo.InvariantCulture),
        ["StreamPool:MaximumStreamCapacity"] = (6L * BodyBytes).ToString(CultureInfo.InvariantCulture),
        ["MemoryBudget:MaxBytesInFlight"] = Budget.ToString(CultureInfo.InvariantCulture),
        ["MemoryBudget:MaxWait"] = "00:00:00.5",
        ["Http:DataRateGracePeriod"] = "00:00:01",
        ["Http:MinDataRateBytesPerSecond"] = (4 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
    };

    /// <summary>Samples pool bytes in use, the budget and the process's working set every 20 ms until stopped.</summary>
    private sealed class MemorySampler : IDisposable
    {
        private readonly CancellationTokenSource _stop = new();
        private readonly Task _loop;
        private readonly long _baseline;

        public MemorySampler(RecyclableMemoryStreamManager pool, EnvelopeMemoryBudget budget)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            _baseline = WorkingSet();
            _loop = Task.Run(async () =>
            {
                while (!_stop.IsCancellationRequested)
                {
                    PeakPool = Math.Max(PeakPool, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
                    PeakBudget = Math.Max(PeakBudget, budget.InUse);
                    PeakWorkingSet = Math.Max(PeakWorkingSet, WorkingSet());
                    await Task.Delay(20).ConfigureAwait(false);
                }
            });
        }

        public long PeakPool { get; private set; }

        public long PeakBudget { get; private set; }

        public long PeakWorkingSet { get; private set; }

        public long PeakWorkingSetGrowth => PeakWorkingSet - _baseline;

        public void Stop()
        {
            _stop.Cancel();
            _loop.GetAwaiter().GetResult();
        }

        public string Describe() => string.Create(
            CultureInfo.InvariantCulture,
            $"peak pool in use {PeakPool / 1048576.0:0} MiB, peak budget {PeakBudget / 1048576.0:0} MiB, working set {_baseline / 1048576.0:0} MiB at start, peak {PeakWorkingSet / 1048576.0:0} MiB");

        public void Dispose()
        {
            if (!_stop.IsCancellationRequested)
            {
                Stop();
            }

            _stop.Dispose();
        }

        private static long WorkingSet()
        {
            using var process = Process.GetCurrentProcess();
            return process.WorkingSet64;
        }
    }
}
