using FunctionApp.Tests.TestKit;
using Microsoft.IO;
using WidgetSigning.SpareCores;
using Xunit.Abstractions;

namespace WidgetSigning.Tests.SpareCores;

/// <summary>
/// The scan ahead walks the pooled body's blocks once, however many there are: finding each next chunk by slicing the
/// body at an offset walked the blocks from the start every time, quadratic in a body of many small blocks. Run alone,
/// so the ratio is not skewed by other tests sharing the cores.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class ScanAheadLinearTimeTests(ITestOutputHelper output)
{
    private const int SmallBytes = 2 * 1024 * 1024;
    private const int BlockBytes = 256;

    [Fact]
    public async Task Execute_BodyInManySmallBlocksAttack_ScansInTimeLinearInItsLength()
    {
        // Arrange: 2 MB and 8 MB in 256-byte pool blocks: ~8,000 and ~33,000 segments.
        var small = AttackBodies.Create("many-tiny-widgets", SmallBytes);
        var large = AttackBodies.Create("many-tiny-widgets", 4 * SmallBytes);
        using var smallPooled = Pooled(small);
        using var largePooled = Pooled(large);

        // Act: the helper's whole scan of each, as a spare core runs it.
        var (ratio, smallMs, largeMs) = await LinearTime.MeasureAsync(body =>
        {
            var pooled = ReferenceEquals(body, small) ? smallPooled : largePooled;
            using var ahead = new ScanAheadStream(pooled, pooled.GetReadOnlySequence(), TestServices.SpareCores().Counters);
            ahead.Execute();
            return Task.CompletedTask;
        }, small, large);

        // Assert
        output.WriteLine($"{small.Length:N0} bytes in {smallMs:F2} ms, {large.Length:N0} bytes in {largeMs:F2} ms: ratio {ratio:F2}");
        Assert.True(ratio <= LinearTime.MaxRatio, $"4x the body took {ratio:F2}x as long");
    }

    private static RecyclableMemoryStream Pooled(byte[] body)
    {
        var manager = new RecyclableMemoryStreamManager(new RecyclableMemoryStreamManager.Options
        {
            BlockSize = BlockBytes,
            LargeBufferMultiple = BlockBytes,
            MaximumBufferSize = 16 * BlockBytes,
        });
        var stream = manager.GetStream("scan-ahead-linear-time");
        stream.Write(body);
        stream.Position = 0;
        return stream;
    }
}
