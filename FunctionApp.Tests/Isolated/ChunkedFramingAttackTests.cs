using System.Globalization;
using System.Text;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Http;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Chunk framing against both apps in their local hosts over raw sockets, at the documented limits (the settings
/// samples: <c>Http:MaxRequestBodyBytes</c> 16 MiB, <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c> 16 MiB + 1/128). The hosts'
/// Kestrel counts a chunked body's framing (chunk-size lines, their line ends, chunk extensions) against its limit with
/// the data; the envelope limit counts the envelope's bytes. So the envelope limit must hold for the envelope whatever
/// the framing, and a chunk extension that takes the body past the host's limit is refused as framing, not as "the
/// host's limit". Before the fix, with the host's limit equal to the envelope's, a 16,776,000-byte envelope was a 413
/// when chunked and a 200 with Content-Length.
/// </summary>
public sealed class ChunkedFramingAttackTests(BothAppsFixture fixture, ITestOutputHelper output) : IClassFixture<BothAppsFixture>
{
    private const string InProcessApp = "in-process";
    private const string IsolatedApp = "isolated";
    private const int Limit = 16 * 1024 * 1024;
    private const long HostLimit = Limit + (Limit / HttpOptions.ChunkFramingShare);
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(60);

    [Theory]
    [InlineData(InProcessApp, 16_776_000, 8 * 1024)]
    [InlineData(IsolatedApp, 16_776_000, 8 * 1024)]
    [InlineData(InProcessApp, Limit, 1024)]
    [InlineData(IsolatedApp, Limit, 1024)]
    public async Task Sign_ChunkedEnvelopeWithinTheLimitInSmallChunks_200SignedAsWithContentLength(string app, int size, int chunk)
    {
        // Arrange: an envelope of exactly `size` bytes; its chunks add their size lines and line ends (16 KiB in 8 KiB
        // chunks, 112 KiB in 1 KiB chunks), which the host's Kestrel counts with the data.
        var envelope = AttackBodies.SingleWidgetEnvelope(size);
        var withLength = await PostAsync(app, $"Content-Length: {size}", [envelope]);

        // Act
        var chunked = await PostAsync(app, "Transfer-Encoding: chunked", [ChunkedFraming.Frame(envelope, chunk)]);
        output.WriteLine($"{app}: Content-Length {withLength.Outcome}; chunked {chunked.Outcome}");

        // Assert: both signed, to the same signature over the same canonical length.
        var expected = Assert.IsType<RawHttpResponse>(withLength.Outcome.Response);
        var response = Assert.IsType<RawHttpResponse>(chunked.Outcome.Response);
        Assert.Equal(200, expected.Status);
        Assert.Equal(200, response.Status);
        Assert.Equal((string?)expected.Json["signature"], (string?)response.Json["signature"]);
        Assert.Equal(expected.Headers[SignatureHeaders.Signature], response.Headers[SignatureHeaders.Signature]);
        Assert.Equal(size, (long?)response.Json["canonicalLength"]);
    }

    [Theory]
    [InlineData(InProcessApp, "Transfer-Encoding: chunked")]
    [InlineData(IsolatedApp, "Transfer-Encoding: chunked")]
    [InlineData(InProcessApp, "Content-Length: 16777217")]
    [InlineData(IsolatedApp, "Content-Length: 16777217")]
    public async Task Sign_EnvelopeOneByteOverTheLimit_413NamingTheEnvelopeLimitAndNothingSigned(string app, string framing)
    {
        // Arrange: one byte more than Http:MaxRequestBodyBytes, chunked (64 KiB chunks) or with Content-Length. Before
        // the fix the host refused both first: a 413 naming "the host's limit", and in-process with Content-Length a 500
        // (the HTTP binding's read failed).
        var envelope = AttackBodies.SingleWidgetEnvelope(Limit + 1);
        var body = framing.StartsWith("Transfer", StringComparison.Ordinal) ? ChunkedFraming.Frame(envelope, 64 * 1024) : envelope;
        var mark = await Log(app).PlaceAsync();

        // Act
        var sent = await PostAsync(app, framing, [body]);
        output.WriteLine($"{app}, {framing}: {sent.Outcome}");

        // Assert
        var response = Assert.IsType<RawHttpResponse>(sent.Outcome.Response);
        Assert.Equal(413, response.Status);
        Assert.Equal("application/problem+json", response.MediaType);
        Assert.Equal(ProblemTypes.BodyTooLarge, (string?)response.Json["type"]);
        var detail = (string?)response.Json["detail"] ?? string.Empty;
        Assert.Contains(HttpOptions.MaxRequestBodyBytesSetting, detail, StringComparison.Ordinal);
        Assert.Contains(Limit.ToString(CultureInfo.InvariantCulture), detail, StringComparison.Ordinal);
        Assert.DoesNotContain("host's limit", detail, StringComparison.Ordinal);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        await AssertNothingSignedSinceAsync(app, mark);
    }

    [Theory]
    [InlineData(InProcessApp, 17_000_000)]
    [InlineData(IsolatedApp, 17_000_000)]
    [InlineData(InProcessApp, 170_000_000)]
    [InlineData(IsolatedApp, 170_000_000)]
    public async Task Sign_HugeChunkExtensionAttack_RefusedQuicklyConnectionClosedNothingSigned(string app, int extension)
    {
        // Arrange: a baseline, a 16,776,000-byte envelope in 64 KiB chunks, signed; then the attack: a 516-byte envelope
        // in one chunk whose size line carries a chunk extension of `extension` bytes (17 MB), which the host's Kestrel
        // drains unread but counts against FUNCTIONS_REQUEST_BODY_SIZE_LIMIT.
        var baseline = await PostAsync(app, "Transfer-Encoding: chunked", [ChunkedFraming.Frame(AttackBodies.SingleWidgetEnvelope(16_776_000), 64 * 1024)]);
        Assert.Equal(200, baseline.Outcome.Response?.Status);
        var envelope = AttackBodies.SingleWidgetEnvelope(516);
        var mark = await Log(app).PlaceAsync();

        // Act
        using var client = await RawHttpClient.ConnectAsync(Address(app));
        var receive = client.ReadResponseAsync(AnswerTimeout);
        var sent = await client.SendUntilAnsweredAsync(ExtensionAttack(app, envelope, extension), receive);
        var outcome = await receive;
        var closed = await client.ClosedAsync(TimeSpan.FromSeconds(10));
        output.WriteLine($"{app}: baseline {baseline.Outcome.Elapsed.TotalMilliseconds:0} ms; attack {outcome}; sent {sent:N0} bytes; closed {closed}");

        // Assert: in process, the app reads the host's refusal itself: a 413 saying the chunk framing was too large, not
        // "the host's limit". Isolated, the host's Kestrel refuses the body while its forwarder copies it to the worker,
        // the forward fails, and the host fails the invocation: ExceptionMiddleware's 500 with no body
        // (azure-functions-host@89dc438d, DefaultHttpProxyService.EnsureSuccessfulForwardingAsync, ExceptionMiddleware),
        // which no app behind it can change.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        if (app == InProcessApp)
        {
            Assert.Equal(413, response.Status);
            Assert.Equal("application/problem+json", response.MediaType);
            Assert.Equal(ProblemTypes.ChunkFramingTooLarge, (string?)response.Json["type"]);
            var text = (string?)response.Json["detail"] ?? string.Empty;
            Assert.Contains("chunked framing is too large", text, StringComparison.Ordinal);
            Assert.Contains("chunk extension", text, StringComparison.Ordinal);
            Assert.Contains(HostLimit.ToString(CultureInfo.InvariantCulture), text, StringComparison.Ordinal);
            Assert.Contains(ProblemMapper.HostBodyLimitSetting, text, StringComparison.Ordinal);
            Assert.DoesNotContain("exceeds the host's limit", text, StringComparison.Ordinal);
        }
        else
        {
            Assert.Equal(500, response.Status);
            Assert.Empty(response.Body);
        }

        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));

        // Cheap: refused after at most the host's limit, whatever the extension's length (the 170 MB one is cut short:
        // more than twice the limit cannot all sit in socket buffers), nothing buffered, and sooner than reading and
        // signing an envelope of that size; the connection is closed.
        if (extension > 2 * HostLimit)
        {
            Assert.True(sent < extension, $"all {sent:N0} bytes were taken before the answer");
        }

        // Isolated, the host's RetryProxyHandler first retries the failed send (50, 100, 200, then 250 ms, ten attempts):
        // a wait of 1.85 s, not work, before the host gives up.
        var retries = app == IsolatedApp ? TimeSpan.FromMilliseconds(50 + 100 + 200 + (6 * 250)) : TimeSpan.Zero;
        Assert.True(
            outcome.Elapsed < (baseline.Outcome.Elapsed * 2) + retries,
            $"the attack took {outcome.Elapsed.TotalMilliseconds:0} ms, the 16 MB envelope {baseline.Outcome.Elapsed.TotalMilliseconds:0} ms");
        Assert.True(closed, "the connection was left open after the refusal");
        await AssertNothingSignedSinceAsync(app, mark);
    }

    /// <summary>The request line and headers, then one chunk of <paramref name="envelope"/> with an extension of <paramref name="extension"/> bytes.</summary>
    private IEnumerable<ReadOnlyMemory<byte>> ExtensionAttack(string app, byte[] envelope, int extension)
    {
        yield return Headers(app, "Transfer-Encoding: chunked");
        // The extension is everything between the chunk size and the line end: ";x=" and the value.
        yield return Encoding.ASCII.GetBytes(envelope.Length.ToString("x", CultureInfo.InvariantCulture) + ";x=");
        var block = new byte[1024 * 1024];
        block.AsSpan().Fill((byte)'a');
        for (var left = extension - 3; left > 0; left -= block.Length)
        {
            yield return block.AsMemory(0, Math.Min(block.Length, left));
        }

        yield return "\r\n"u8.ToArray().Concat(envelope).Concat("\r\n0\r\n\r\n"u8.ToArray()).ToArray();
    }

    private async Task<(RawHttpOutcome Outcome, long Sent)> PostAsync(string app, string framing, byte[][] body)
    {
        using var client = await RawHttpClient.ConnectAsync(Address(app));
        var receive = client.ReadResponseAsync(AnswerTimeout);
        var sent = await client.SendUntilAnsweredAsync([Headers(app, framing), .. body.Select(b => (ReadOnlyMemory<byte>)b)], receive);
        return (await receive, sent);
    }

    private byte[] Headers(string app, string framing) => Encoding.ASCII.GetBytes(
        $"POST /api/sign HTTP/1.1\r\nHost: {Address(app).Authority}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n");

    private Uri Address(string app) => (app == InProcessApp ? fixture.InProcess : fixture.Isolated).BaseAddress!;

    private string Output(string app) => app == InProcessApp ? fixture.InProcessOutput : fixture.IsolatedOutput;

    private SignLogMarker Log(string app) => new(app == InProcessApp ? fixture.InProcess : fixture.Isolated, () => Output(app));

    /// <summary>Nothing was signed after <paramref name="mark"/>: up to the next marker's line, the host logged no signing.</summary>
    private async Task AssertNothingSignedSinceAsync(string app, (int Start, int End) mark)
    {
        var between = await Log(app).SinceAsync(mark);
        Assert.False(between.Contains(SignLogMarker.SignedLine, StringComparison.Ordinal), $"signed after the mark:\n{between}");
    }
}
