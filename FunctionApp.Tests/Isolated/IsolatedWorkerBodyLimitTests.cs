using System.Text;
using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated worker runs its own Kestrel behind the host's forwarder (ASP.NET Core integration), which sets no body
/// limit: Kestrel's default, 30,000,000 bytes, counted with the forwarder's chunk framing, refused envelopes that
/// <c>Http:MaxRequestBodyBytes</c> allows (up to 100 MiB): a chunked one as "the host's limit", one with Content-Length as
/// the host's 502. The app lifts that limit; the host's and the app's own limits still apply.
/// </summary>
public sealed class IsolatedWorkerBodyLimitTests(IsolatedLargeEnvelopeHostFixture fixture, ITestOutputHelper output) : IClassFixture<IsolatedLargeEnvelopeHostFixture>
{
    private const int KestrelDefaultMaxRequestBodySize = 30_000_000;

    [Fact]
    public async Task Sign_EnvelopeAboveTheWorkersKestrelDefaultWithinTheAppsLimit_200ChunkedAndWithContentLength()
    {
        // Arrange: one widget whose property0 fills 31,000,000 bytes, under the 32 MiB (33,554,432) the app accepts here.
        const int size = KestrelDefaultMaxRequestBodySize + 1_000_000;
        var envelope = AttackBodies.SingleWidgetEnvelope(size);

        // Act
        var withLength = await PostAsync($"Content-Length: {size}", envelope);
        var chunked = await PostAsync("Transfer-Encoding: chunked", ChunkedFraming.Frame(envelope, 64 * 1024));
        output.WriteLine($"Content-Length: {withLength}; chunked: {chunked}");

        // Assert: both signed, to the same signature over the whole envelope.
        var expected = Assert.IsType<RawHttpResponse>(withLength.Response);
        var response = Assert.IsType<RawHttpResponse>(chunked.Response);
        Assert.Equal(200, expected.Status);
        Assert.Equal(200, response.Status);
        Assert.Equal(size, (long?)response.Json["canonicalLength"]);
        Assert.Equal((string?)expected.Json["signature"], (string?)response.Json["signature"]);
    }

    private async Task<RawHttpOutcome> PostAsync(string framing, byte[] body)
    {
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        var receive = client.ReadResponseAsync(TimeSpan.FromSeconds(60));
        var headers = Encoding.ASCII.GetBytes($"POST /api/sign HTTP/1.1\r\nHost: {fixture.Host.BaseAddress.Authority}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n");
        await client.SendUntilAnsweredAsync([headers, body], receive);
        return await receive;
    }
}
