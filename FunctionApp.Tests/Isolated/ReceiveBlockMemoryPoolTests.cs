using System.Buffers;
using System.Net;
using System.Reflection;
using System.Runtime.InteropServices;
using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated worker's Kestrel memory pool (FunctionApp.Isolated/Hosting). These tests are net8.0 and the app is net10.0
/// (IsolatedBuildOutput), so its types are loaded from the build output by name; the tests run on the .NET 10 runtime, whose
/// Kestrel takes <c>IMemoryPoolFactory&lt;byte&gt;</c> from the container, as the worker's does. That the published worker
/// registers it is checked on the worker itself, in tools/WorkerHost; that bodies still sign to the vectors through it is
/// every test in IsolatedVectorTests.
/// </summary>
public sealed class ReceiveBlockMemoryPoolTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    private const int BlockSize = 64 * 1024;
    private const int KestrelBlockSize = 4096;

    [Fact]
    public void Rent_AnySizeUpToABlock_LendsOne64KiBBlock()
    {
        // Arrange
        using var pool = CreatePool();

        // Act
        using var unsized = pool.Rent();
        using var small = pool.Rent(KestrelBlockSize);
        using var whole = pool.Rent(BlockSize);

        // Assert
        Assert.Equal(BlockSize, pool.MaxBufferSize);
        Assert.All(new[] { unsized, small, whole }, block => Assert.Equal(BlockSize, block.Memory.Length));
        Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(BlockSize + 1));
    }

    [Fact]
    public void Dispose_Twice_ReturnsTheBlockOnce()
    {
        // Arrange
        using var pool = CreatePool();
        var first = pool.Rent();
        var array = ArrayOf(first);

        // Act: disposed twice, as a careless owner might.
        first.Dispose();
        first.Dispose();
        var returned = Record.Exception(() => first.Memory);
        using var second = pool.Rent();
        using var third = pool.Rent();

        // Assert: a returned block hands out no memory; it is reused once, never lent to two renters.
        Assert.IsType<ObjectDisposedException>(returned);
        Assert.Same(array, ArrayOf(second));
        Assert.NotSame(array, ArrayOf(third));
    }

    [Fact]
    public void Return_PastTheProcessBound_LeavesTheBlockToTheGc()
    {
        // Arrange: two pools (Kestrel makes one per I/O queue) over one store that keeps two blocks.
        var store = CreateStore(maxRetainedBlocks: 2);
        using var one = CreatePool(store);
        using var other = CreatePool(store);
        var lent = new[] { one.Rent(), other.Rent(), one.Rent() };

        // Act
        foreach (var block in lent)
        {
            block.Dispose();
        }

        var kept = (int)Property(store, "RetainedBlocks");
        var again = new[] { other.Rent(), other.Rent(), one.Rent() };

        // Assert: two kept for the whole process, the third allocated anew.
        Assert.Equal(2, kept);
        Assert.Equal(4L, (long)Property(store, "CreatedBlocks"));
        foreach (var block in again)
        {
            block.Dispose();
        }
    }

    [Fact]
    public void Rent_AfterThePoolIsDisposed_Throws()
    {
        // Arrange
        var pool = CreatePool();
        var block = pool.Rent();

        // Act
        pool.Dispose();

        // Assert: a block lent before still goes back; the pool lends no more.
        block.Dispose();
        Assert.Throws<ObjectDisposedException>(() => pool.Rent());
    }

    [Fact]
    public async Task Kestrel_WithTheFactoryRegistered_ReceivesABodyInBlocksLargerThan4KiB()
    {
        // Arrange, Act: the worker's registration, a real Kestrel, a 1 MB body over a socket.
        var largest = await LargestReceivedSegmentAsync(registerFactory: true);

        // Assert
        Assert.InRange(largest, KestrelBlockSize + 1, BlockSize);
    }

    [Fact]
    public async Task Kestrel_WithItsOwnPool_ReceivesABodyIn4KiBBlocks()
    {
        // Arrange, Act: the control; without it the test above could pass on a Kestrel that ignores the factory.
        var largest = await LargestReceivedSegmentAsync(registerFactory: false);

        // Assert
        Assert.InRange(largest, 1, KestrelBlockSize);
    }

    [Fact]
    public async Task Worker_Started_ItsKestrelTookItsPoolsFromTheFactory()
    {
        // Arrange: the worker's log reaches the host's output through the worker channel, not always at once.
        const string Created = "Memory pool for kestrel: 65536-byte receive blocks";
        var deadline = System.Diagnostics.Stopwatch.StartNew();

        // Act
        while (!fixture.Host.Output.Contains(Created, StringComparison.Ordinal) && deadline.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(50);
        }

        // Assert
        Assert.Contains(Created, fixture.Host.Output, StringComparison.Ordinal);
    }

    private static async Task<long> LargestReceivedSegmentAsync(bool registerFactory)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        var port = Loopback.FreePort();
        builder.WebHost.UseUrls($"http://127.0.0.1:{port}");
        if (registerFactory)
        {
            builder.Services.AddSingleton(FactoryInterface, FactoryType);
        }

        await using var app = builder.Build();
        app.MapPost("/", async (HttpContext context) =>
        {
            // The request body's pipe hands out the connection's receive segments as they are.
            long largest = 0;
            var reader = context.Request.BodyReader;
            while (true)
            {
                var result = await reader.ReadAsync();
                foreach (var segment in result.Buffer)
                {
                    largest = Math.Max(largest, segment.Length);
                }

                reader.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    break;
                }
            }

            return Results.Text(largest.ToString(System.Globalization.CultureInfo.InvariantCulture));
        });
        await app.StartAsync();

        using var client = new HttpClient();
        using var response = await client.PostAsync(new Uri($"http://127.0.0.1:{port}/"), new ByteArrayContent(new byte[1024 * 1024]));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var largestSegment = long.Parse(await response.Content.ReadAsStringAsync(), System.Globalization.CultureInfo.InvariantCulture);
        await app.StopAsync();
        return largestSegment;
    }

    private static Assembly App => IsolatedBuildOutput.App;

    private static Type FactoryType { get; } = App.GetType("FunctionApp.Isolated.Hosting.ReceiveBlockMemoryPoolFactory", throwOnError: true)!;

    private static Type FactoryInterface { get; } = FactoryType.GetInterfaces().Single(i => i.Name == "IMemoryPoolFactory`1");

    private static object CreateStore(int maxRetainedBlocks) =>
        Activator.CreateInstance(App.GetType("FunctionApp.Isolated.Hosting.ReceiveBlockStore", throwOnError: true)!, maxRetainedBlocks)!;

    private static MemoryPool<byte> CreatePool(object store) =>
        (MemoryPool<byte>)Activator.CreateInstance(App.GetType("FunctionApp.Isolated.Hosting.ReceiveBlockMemoryPool", throwOnError: true)!, store)!;

    // Through the container, as the worker resolves it.
    private static MemoryPool<byte> CreatePool()
    {
        using var services = new ServiceCollection().AddLogging().AddSingleton(FactoryInterface, FactoryType).BuildServiceProvider();
        var factory = services.GetRequiredService(FactoryInterface);
        return (MemoryPool<byte>)FactoryInterface.GetMethod("Create")!.Invoke(factory, [null])!;
    }

    private static object Property(object target, string name) => target.GetType().GetProperty(name)!.GetValue(target)!;

    private static byte[] ArrayOf(IMemoryOwner<byte> owner) =>
        MemoryMarshal.TryGetArray<byte>(owner.Memory, out var segment) ? segment.Array! : throw new InvalidOperationException("not an array");
}
