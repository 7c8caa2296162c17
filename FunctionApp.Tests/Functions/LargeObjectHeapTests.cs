using FunctionApp.Functions;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// The point of the service: a ~1 MB envelope goes from request body to signature without any buffer of the
/// whole document (body, text or canonical JSON) on the large object heap.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class LargeObjectHeapTests
{
    private const int Requests = 5;

    [Fact]
    public async Task RunAsync_SeedEnvelopeFromRequestBody_AllocatesNothingOnTheLargeObjectHeap()
    {
        // Arrange
        var vector = Vector.Load("seed-3000-widgets");
        await using var host = await FunctionsTestHost.StartAsync(SignHostFixture.Settings(), typeof(SignFunction));

        // Act: the function class from the host's DI, a real HttpRequest with Content-Length, the result executed.
        var ticks = await CountLargeAllocationTicksAsync(vector, host, direct: true, chunked: false);

        // Assert
        Assert.Empty(ticks);
    }

    [Fact]
    public async Task Host_ChunkedSeedEnvelope_AllocatesNothingOnTheLargeObjectHeap()
    {
        // Arrange: without Content-Length the HTTP trigger binding leaves the body alone.
        var vector = Vector.Load("seed-3000-widgets");
        await using var host = await FunctionsTestHost.StartAsync(SignHostFixture.Settings(), typeof(SignFunction));

        // Act
        var ticks = await CountLargeAllocationTicksAsync(vector, host, direct: false, chunked: true);

        // Assert
        Assert.Empty(ticks);
    }

    [Fact]
    public async Task Host_SeedEnvelopeWithContentLength_HttpTriggerBindingCopiesTheBodyIntoAString()
    {
        // Characterizes the platform, not our code: Microsoft.Azure.WebJobs.Extensions.Http 3.x reads any body
        // with a Content-Length into one string for binding data before the function runs (see docs/api.md,
        // "Large bodies and the in-process HTTP binding"). If a runtime update stops doing so, this test tells us.
        var vector = Vector.Load("seed-3000-widgets");
        await using var host = await FunctionsTestHost.StartAsync(SignHostFixture.Settings(), typeof(SignFunction));

        // Act
        var ticks = await CountLargeAllocationTicksAsync(vector, host, direct: false, chunked: false);

        // Assert
        Assert.NotEmpty(ticks);
        Assert.All(ticks, type => Assert.Equal("System.String", type));
    }

    [Fact]
    public void Monitor_LargeArrayAllocated_IsSeen()
    {
        // Arrange: the monitor must be able to fail the tests above.
        using var monitor = new LargeObjectHeapMonitor();
        monitor.Reset();

        // Act
        for (var i = 0; i < Requests; i++)
        {
            GC.KeepAlive(new byte[1_100_000]);
        }

        monitor.Flush();

        // Assert
        Assert.Contains("System.Byte[]", monitor.LargeAllocationTicks);
    }

    private static async Task<IReadOnlyCollection<string>> CountLargeAllocationTicksAsync(Vector vector, FunctionsTestHost host, bool direct, bool chunked)
    {
        // Read once: the test's own copy of the body must not count against the service.
        var input = vector.Input;
        async Task SignOnceAsync()
        {
            var request = TestRequests.Post("/api/sign", input, chunked: chunked);
            var response = direct
                ? await host.InvokeDirectAsync<SignFunction>(f => f.RunAsync(request), request)
                : await host.InvokeHttpAsync(SignFunction.Name, request);
            Assert.Equal(vector.SignatureHex, (string?)response.Json["signature"]);
        }

        // Warm-up fills the stream pool and JIT-compiles the path.
        for (var i = 0; i < 3; i++)
        {
            await SignOnceAsync();
        }

        using var monitor = new LargeObjectHeapMonitor();
        monitor.Reset();

        // A per-request buffer of the document (>= 85 KB each) over five requests raises several ticks.
        for (var i = 0; i < Requests; i++)
        {
            await SignOnceAsync();
        }

        monitor.Flush();
        return monitor.LargeAllocationTicks.ToArray();
    }
}
