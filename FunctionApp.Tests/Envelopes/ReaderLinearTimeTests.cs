using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Envelopes;

/// <summary>
/// The queue path's reading and signing cost grows linearly for every slow-path body: the reader over a MemoryStream whose
/// buffer is not exposable (what the queue message hands it), then the signer. Run alone, so the ratio is not skewed by
/// other tests sharing the cores.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class ReaderLinearTimeTests(ITestOutputHelper output)
{
    private const int SmallBytes = 2 * 1024 * 1024;

    public static TheoryData<string> Shapes() => new(AttackBodies.Shapes);

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task ReadAndSign_QueuePathBodyFourTimesLarger_TakesAtMostTenTimesAsLong(string shape)
    {
        // Arrange
        var services = new TestServices();
        var small = AttackBodies.Create(shape, SmallBytes);
        var large = AttackBodies.Create(shape, 4 * SmallBytes);
        // Both sizes are what the shape is meant to be (valid or refused), so the ratio compares like with like.
        Assert.Equal(AttackBodies.IsValid(shape), TryReadAndSign(services, small));
        Assert.Equal(AttackBodies.IsValid(shape), TryReadAndSign(services, large));

        // Act
        var (ratio, smallMs, largeMs) = await LinearTime.MeasureAsync(body =>
        {
            TryReadAndSign(services, body);
            return Task.CompletedTask;
        }, small, large);

        // Assert
        output.WriteLine($"{shape}: {small.Length:N0} bytes in {smallMs:F2} ms, {large.Length:N0} bytes in {largeMs:F2} ms: ratio {ratio:F2}");
        Assert.True(ratio <= LinearTime.MaxRatio, $"{shape}: 4x the body took {ratio:F2}x as long");
        Assert.Equal(0, services.Streams.SmallPoolInUseSize + services.Streams.LargePoolInUseSize);
    }

    private static bool TryReadAndSign(TestServices services, byte[] body)
    {
        try
        {
            var envelope = services.Reader.Read(new MemoryStream(body, writable: false));
            using var signed = services.Signer.SignWith(envelope);
            return true;
        }
        catch (ProblemException e) when (e.Is(Problems.Types.InvalidEnvelope))
        {
            return false;
        }
    }
}
