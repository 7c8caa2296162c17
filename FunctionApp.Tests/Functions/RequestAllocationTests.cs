using FunctionApp.Functions;
using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// What one /api/sign request of the seed envelope allocates in all, from body stream to written response.
/// Most of it is the deserialized envelope itself (3,000 widgets, 30,000 strings), which any approach must build.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class RequestAllocationTests(ITestOutputHelper output)
{
    // Steady state measures about 2.3 MiB (2,405,980 bytes on 2026-11-24): ~2 MB are the envelope's own strings and
    // objects (what any Newtonsoft-based reader materializes), the rest the widget list, the reader and the response.
    private const long BudgetBytes = 3 * 1024 * 1024;

    [Fact]
    public async Task RunAsync_SeedEnvelope_AllocatesAtMost3MB()
    {
        // Arrange
        var vector = Vector.Load("seed-3000-widgets");
        var input = vector.Input;
        await using var host = await FunctionsTestHost.StartAsync(SignHostFixture.Settings(), typeof(SignFunction));
        async Task SignOnceAsync()
        {
            var request = TestRequests.Post("/api/sign", input);
            var response = await host.InvokeDirectAsync<SignFunction>(f => f.RunAsync(request), request);
            Assert.Equal(200, response.Status);
        }

        // Enough calls for tiered compilation to replace the first, unoptimized code of the hot path.
        for (var i = 0; i < 60; i++)
        {
            await SignOnceAsync();
        }

        await Task.Delay(500);

        // Act
        const int Requests = 10;
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < Requests; i++)
        {
            await SignOnceAsync();
        }

        var perRequest = (GC.GetTotalAllocatedBytes(precise: true) - before) / Requests;
        output.WriteLine($"allocated per request: {perRequest} bytes (body {input.Length} bytes)");

        // Assert: the naive string approach allocates the body as UTF-16 text alone (2.3 MB) before doing anything.
        Assert.True(perRequest <= BudgetBytes, $"a request allocated {perRequest} bytes; the budget is {BudgetBytes}");
    }
}
