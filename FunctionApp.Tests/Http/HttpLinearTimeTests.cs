using WidgetSigning.Http;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Options;
using Xunit.Abstractions;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Http;

/// <summary>
/// The HTTP path's cost (content type, body read into the pool, strict reader, signing) grows linearly for every
/// slow-path body. Run alone, so the ratio is not skewed by other tests sharing the cores.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class HttpLinearTimeTests(ITestOutputHelper output)
{
    private const int SmallBytes = 2 * 1024 * 1024;

    public static TheoryData<string> Shapes() => new(AttackBodies.Shapes);

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task ReadAndSign_HttpBodyFourTimesLarger_TakesAtMostTenTimesAsLong(string shape)
    {
        // Arrange
        var services = new TestServices();
        var reader = new HttpEnvelopeReader(services.Reader, services.Streams, Options.Create(new HttpOptions()), TestServices.NoBudget);
        var small = AttackBodies.Create(shape, SmallBytes);
        var large = AttackBodies.Create(shape, 4 * SmallBytes);
        // Both sizes are what the shape is meant to be (valid or refused), so the ratio compares like with like.
        Assert.Equal(AttackBodies.IsValid(shape), await TryReadAndSignAsync(services, reader, small));
        Assert.Equal(AttackBodies.IsValid(shape), await TryReadAndSignAsync(services, reader, large));

        // Act
        var (ratio, smallMs, largeMs) = await LinearTime.MeasureAsync(body => TryReadAndSignAsync(services, reader, body), small, large);

        // Assert
        output.WriteLine($"{shape}: {small.Length:N0} bytes in {smallMs:F2} ms, {large.Length:N0} bytes in {largeMs:F2} ms: ratio {ratio:F2}");
        Assert.True(ratio <= LinearTime.MaxRatio, $"{shape}: 4x the body took {ratio:F2}x as long");
        Assert.Equal(0, services.Streams.SmallPoolInUseSize + services.Streams.LargePoolInUseSize);
    }

    private static async Task<bool> TryReadAndSignAsync(TestServices services, HttpEnvelopeReader reader, byte[] body)
    {
        try
        {
            var envelope = await reader.ReadAsync(TestRequests.Post("/api/sign", body, sendContentLength: false), CancellationToken.None);
            using var signed = services.Signer.SignWith(envelope);
            return true;
        }
        catch (ProblemException e) when (e.Is(Problems.Types.InvalidEnvelope))
        {
            return false;
        }
    }
}
