using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Http;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Attacks on the isolated app's worker that the client aims past the host (its Kestrel on loopback) or that make the
/// worker log a fault for the client's mistake, and the transfer-coding attack on both apps, against the apps in their
/// local hosts over raw sockets. What the host's output holds after an answer is read between two "flush markers" (an
/// empty envelope signed before and after): the host logs in order, so every line the attack caused before the second
/// marker's answer lies between them.
/// </summary>
public sealed partial class IsolatedFrontDoorAttackTests(BothAppsFixture fixture, ITestOutputHelper output) : IClassFixture<BothAppsFixture>
{
    private readonly SignLogMarker _isolatedLog = new(fixture.Isolated, () => fixture.IsolatedOutput);
    private readonly SignLogMarker _inProcessLog = new(fixture.InProcess, () => fixture.InProcessOutput);

    private const string InProcessApp = "in-process";
    private const string IsolatedApp = "isolated";
    private const string NeverForwardedLine = "its HTTP request never reached the worker";
    // What the worker may say of a short body, by how far the host's forward got: the read failed as the host's connection
    // closed, or as the body ended short, or the request never came.
    private static readonly string[] ShortBodyLines =
    [
        "[worker log] Information WidgetSigning.Http.SignHandler: Sign: client closed request",
        "[worker log] Information WidgetSigning.Http.SignHandler: Sign rejected a request with 400",
        "[worker log] Warning FunctionApp.Isolated.Functions.UnforwardedRequestMiddleware: Sign invocation",
    ];
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(60);
    private static readonly byte[] Envelope = AttackBodies.SingleWidgetEnvelope(516);

    [Theory]
    [InlineData("127.0.0.1")]
    [InlineData("::1")]
    public async Task WorkerPort_DirectRequestWithoutInvocationId_400NamingNothingInternalOneWarningNoStackTrace(string loopback)
    {
        // Arrange: the worker's own Kestrel, on the loopback address it listens on, as any local process could reach it.
        var worker = WorkerAddress(loopback);
        var mark = await SignMarkerAsync(IsolatedApp);

        // Act
        var outcome = await SendAsync(worker, Request(worker, $"Content-Length: {Envelope.Length}"), Envelope);
        output.WriteLine($"{worker}: {outcome}");
        var logged = await LinesSinceAsync(IsolatedApp, mark);

        // Assert: a 400 problem that names nothing of the worker, the integration or the header; one Warning, no fault.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(400, response.Status);
        Assert.Equal("application/problem+json", response.MediaType);
        Assert.Equal(ProblemTypes.InvalidRequest, (string?)response.Json["type"]);
        AssertNamesNothingInternal(response.Text);
        Assert.Single(logged, l => l.Contains("Refused a POST request", StringComparison.Ordinal));
        AssertNoFault(logged);
    }

    [Fact]
    public async Task WorkerPort_DirectRequestWithAnInvocationIdOfNoInvocation_400AfterThePairingWaitNoFault()
    {
        // Arrange: a well-formed id no invocation has, as a client's own x-ms-invocation-id reaches the worker through the
        // host (which adds its id only when the header is absent).
        var worker = WorkerAddress("127.0.0.1");
        var mark = await SignMarkerAsync(IsolatedApp);

        // Act
        var outcome = await SendAsync(worker, Request(worker, $"Content-Length: {Envelope.Length}", $"x-ms-invocation-id: {Guid.NewGuid()}"), Envelope);
        output.WriteLine($"{worker}: {outcome}");
        var logged = await LinesSinceAsync(IsolatedApp, mark);

        // Assert
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(400, response.Status);
        Assert.Equal("application/problem+json", response.MediaType);
        AssertNamesNothingInternal(response.Text);
        Assert.Single(logged, l => l.Contains("matched no invocation", StringComparison.Ordinal));
        AssertNoFault(logged);
    }

    [Fact]
    public async Task Sign_ShortBodyThenHalfClose_WorkerLogsOneLineBelowErrorNoFault()
    {
        // Arrange: a body 100 bytes shorter than its Content-Length, then the send side closed. The host takes the
        // half-close for a client that left; depending on when, its forward has reached the worker (whose read then
        // fails: "client closed request", or a 400 for the short body) or not (the worker's invocation waits 15 s for a
        // request that never comes, which the worker logged at Error with a stack trace).
        var mark = await SignMarkerAsync(IsolatedApp);
        using var client = await RawHttpClient.ConnectAsync(fixture.Isolated.BaseAddress!);
        var receive = client.ReadResponseAsync(AnswerTimeout);

        // Act
        await client.SendAsync([.. Request(fixture.Isolated.BaseAddress!, $"Content-Length: {Envelope.Length + 100}"), .. Envelope]);
        client.ShutdownSend();
        output.WriteLine($"short body: {await receive}");
        var told = await WaitForLineAsync(IsolatedApp, mark, ShortBodyLines, TimeSpan.FromSeconds(45));
        var logged = await LinesSinceAsync(IsolatedApp, mark);

        // Assert: the worker said so once, at Information or Warning, and logged no Error or stack trace.
        Assert.True(told, "the worker did not log the short body:\n" + string.Join('\n', logged));
        Assert.Single(logged, l => ShortBodyLines.Any(t => l.Contains(t, StringComparison.Ordinal)));
        AssertNoFault(logged);
    }

    [Fact]
    public async Task Sign_NonAsciiHeaderValue_WorkerLogsOneWarningNoFault()
    {
        // Arrange: a header value in UTF-8, which the host's forwarder cannot send on (its HttpClient takes ASCII only).
        var mark = await SignMarkerAsync(IsolatedApp);
        var address = fixture.Isolated.BaseAddress!;

        // Act
        var headers = Encoding.ASCII.GetBytes($"POST /api/sign HTTP/1.1\r\nHost: {address.Authority}\r\nContent-Type: application/json\r\nContent-Length: {Envelope.Length}\r\nX-Note: caf")
            .Concat("\u00e9"u8.ToArray()).Concat("\r\n\r\n"u8.ToArray()).ToArray();
        var outcome = await SendAsync(address, headers, Envelope);
        output.WriteLine($"non-ASCII header: {outcome}");
        var warned = await WaitForLineAsync(IsolatedApp, mark, [NeverForwardedLine], TimeSpan.FromSeconds(45));
        var logged = await LinesSinceAsync(IsolatedApp, mark);

        // Assert: the host cannot forward it and, once the worker's invocation ends, answers as the Functions host does
        // when its forward failed: ExceptionMiddleware's 500 with no body (docs/security.md); nothing signed. The
        // worker's side of it: one Warning, no Error or stack trace.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(500, response.Status);
        Assert.Empty(response.Body);
        Assert.Empty(SignLogMarker.SignedLines(string.Join('\n', logged)));
        Assert.True(warned, "the worker did not log the unforwarded request:\n" + string.Join('\n', logged));
        Assert.Single(logged, l => l.Contains(NeverForwardedLine, StringComparison.Ordinal));
        AssertNoFault(logged);
    }

    [Fact]
    public async Task Sign_SlowUploadUnderTheMinimumDataRate_Worker408AndNoDrainFaultLogged()
    {
        // Arrange: 2 KiB every 250 ms (8 KiB/s): above the host Kestrel's own minimum (240 B/s), far below the app's
        // Http:MinDataRateBytesPerSecond (256 KiB/s), so the worker answers 408 while the body is still arriving and its
        // Kestrel then drains the rest. (The in-process app's HTTP binding reads the whole body before the function
        // runs, so only the isolated app applies the rate to a body as it arrives.)
        var body = AttackBodies.SingleWidgetEnvelope(1024 * 1024);
        var mark = await SignMarkerAsync(IsolatedApp);
        var address = Address(IsolatedApp);
        using var client = await RawHttpClient.ConnectAsync(address);
        var receive = client.ReadResponseAsync(AnswerTimeout);

        // Act
        await client.SendAsync(Request(address, $"Content-Length: {body.Length}"));
        var sent = await client.TrickleAsync(body, 2048, TimeSpan.FromMilliseconds(250), receive);
        var outcome = await receive;
        output.WriteLine($"answer through the host: {outcome}; sent {sent:N0} bytes");
        var logged = await LinesSinceAsync(IsolatedApp, mark);

        // Assert: the worker's 408, logged once as a rejection, and no Error ("automatic draining of the request body
        // failed … Reading is already in progress") or stack trace. What the client gets is the host's doing: its
        // forwarder returns the worker's answer only once it has sent the whole body (docs/api.md).
        Assert.NotNull(outcome.Response);
        Assert.Single(logged, l => l.Contains("Sign rejected a request with 408 (" + ProblemTypes.RequestTimeout, StringComparison.Ordinal));
        Assert.DoesNotContain(logged, l => l.Contains("draining", StringComparison.OrdinalIgnoreCase));
        AssertNoFault(logged);
    }

    [Theory]
    [InlineData("gzip, chunked", "gzip")]
    [InlineData("deflate,chunked", "deflate")]
    public async Task Sign_TransferCodingOtherThanChunked_415NamingTheCodingNothingSigned(string transferEncoding, string coding)
    {
        // Arrange: a plain chunked envelope labelled with another transfer coding. The in-process app's host hands the
        // app the request as the client sent it; the isolated app's host drops the header before the worker (docs/api.md).
        var address = Address(InProcessApp);
        var mark = await SignMarkerAsync(InProcessApp);

        // Act
        var outcome = await SendAsync(address, Request(address, $"Transfer-Encoding: {transferEncoding}"), ChunkedFraming.Frame(Envelope, 256));
        output.WriteLine($"{transferEncoding}: {outcome}");
        var logged = await LinesSinceAsync(InProcessApp, mark);

        // Assert
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(415, response.Status);
        Assert.Equal(ProblemTypes.UnsupportedMediaType, (string?)response.Json["type"]);
        Assert.Contains($"Transfer-Encoding '{coding}'", (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.DoesNotContain(logged, l => l.Contains("Sign signed 1 widgets", StringComparison.Ordinal));
    }

    /// <summary>
    /// Kestrel's rule, the first server in both hosting models (dotnet/aspnetcore@dc45e51bef8a,
    /// src/Servers/Kestrel/Core/src/Internal/Http/Http1MessageBody.cs, <c>For</c>): when <c>Transfer-Encoding</c>'s last
    /// coding is not <c>chunked</c> the body's length cannot be known, so Kestrel answers 400
    /// (<c>FinalTransferCodingNotChunked</c>) and closes the connection before any app code runs.
    /// </summary>
    [Theory]
    [InlineData(InProcessApp, "chunked, gzip")]
    [InlineData(IsolatedApp, "chunked, gzip")]
    [InlineData(InProcessApp, "gzip")]
    [InlineData(IsolatedApp, "gzip")]
    public async Task Sign_LastTransferCodingNotChunked_HostAnswers400BeforeTheAppNothingSigned(string app, string transferEncoding)
    {
        // Arrange
        var address = Address(app);
        var mark = await SignMarkerAsync(app);

        // Act
        var outcome = await SendAsync(address, Request(address, $"Transfer-Encoding: {transferEncoding}"), ChunkedFraming.Frame(Envelope, 256));
        output.WriteLine($"{app} {transferEncoding}: {outcome}");
        var logged = await LinesSinceAsync(app, mark);

        // Assert: the host's 400, and the app never saw the request.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(400, response.Status);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.DoesNotContain(logged, l => l.Contains("Sign signed 1 widgets", StringComparison.Ordinal) || l.Contains("Sign rejected", StringComparison.Ordinal));
    }

    /// <summary>
    /// What reaches the isolated worker of <c>Transfer-Encoding: gzip, chunked</c> (the in-process app's 415 is above).
    /// Kestrel in the host takes the chunk framing off and leaves the header as sent (Http1MessageBody.For, above); the
    /// host's YARP forwarder never copies <c>Transfer-Encoding</c> (microsoft/reverse-proxy v2.0.1, the version
    /// azure-functions-host@89dc438d references, commit 1c2ee13fae89: src/ReverseProxy/Forwarder/RequestUtilities.cs,
    /// <c>_headersToExclude</c>) and sends the body as a stream of unknown length, which .NET's HTTP/1.1 client frames as
    /// <c>chunked</c>. So the worker sees a plain chunked request with the bytes the client sent: it signs them, as it
    /// would without the label, and nothing says gzip.
    /// </summary>
    [Fact]
    public async Task Sign_GzipChunkedThroughTheIsolatedHost_HostDropsTheLabelWorkerSignsTheBytesSent()
    {
        // Arrange
        var address = Address(IsolatedApp);
        var plain = await SendAsync(address, Request(address, "Transfer-Encoding: chunked"), ChunkedFraming.Frame(Envelope, 256));
        var expected = Assert.IsType<RawHttpResponse>(plain.Response);

        // Act
        var outcome = await SendAsync(address, Request(address, "Transfer-Encoding: gzip, chunked"), ChunkedFraming.Frame(Envelope, 256));
        output.WriteLine($"chunked: {plain}; gzip, chunked: {outcome}");

        // Assert: the same answer and signature as the unlabelled request.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(200, expected.Status);
        Assert.Equal(200, response.Status);
        Assert.Equal(expected.Headers[SignatureHeaders.Signature], response.Headers[SignatureHeaders.Signature]);
    }

    [Fact]
    public async Task Sign_GzipChunkedCompressedBodyThroughTheIsolatedHost_400NotUtf8NothingSigned()
    {
        // Arrange: the envelope really gzip-compressed; the worker gets the compressed bytes (the host does not decode them).
        var address = Address(IsolatedApp);
        using var compressed = new MemoryStream();
        using (var gzip = new System.IO.Compression.GZipStream(compressed, System.IO.Compression.CompressionLevel.Optimal, leaveOpen: true))
        {
            gzip.Write(Envelope);
        }

        var mark = await SignMarkerAsync(IsolatedApp);

        // Act
        var outcome = await SendAsync(address, Request(address, "Transfer-Encoding: gzip, chunked"), ChunkedFraming.Frame(compressed.ToArray(), 256));
        output.WriteLine($"gzip, chunked (compressed): {outcome}");
        var logged = await LinesSinceAsync(IsolatedApp, mark);

        // Assert: gzip's first bytes are not UTF-8 text, so the reader refuses them at $.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(400, response.Status);
        Assert.Equal(ProblemTypes.InvalidEnvelope, (string?)response.Json["type"]);
        Assert.Contains("not valid UTF-8", (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.DoesNotContain(logged, l => l.Contains("Sign signed 1 widgets", StringComparison.Ordinal));
    }

    private static void AssertNamesNothingInternal(string body)
    {
        foreach (var word in new[] { "x-ms-invocation-id", "Exception", "   at ", "Microsoft.", "Azure.Functions", "correlation" })
        {
            Assert.DoesNotContain(word, body, StringComparison.OrdinalIgnoreCase);
        }
    }

    /// <summary>No line is an Error or Critical entry (the worker's or the in-process host's), and none is a stack frame.</summary>
    private static void AssertNoFault(IReadOnlyList<string> lines)
    {
        var faults = lines.Where(l =>
            l.StartsWith("[worker log] Error", StringComparison.Ordinal) || l.StartsWith("[worker log] Critical", StringComparison.Ordinal) ||
            l.StartsWith("fail:", StringComparison.Ordinal) || l.StartsWith("crit:", StringComparison.Ordinal) ||
            StackFrame().IsMatch(l)).ToList();
        Assert.True(faults.Count == 0, "faults logged:\n" + string.Join('\n', faults));
    }

    private Uri WorkerAddress(string loopback) =>
        new($"http://{(loopback.Contains(':', StringComparison.Ordinal) ? $"[{loopback}]" : loopback)}:{fixture.IsolatedWorkerPort}/");

    private Uri Address(string app) => (app == InProcessApp ? fixture.InProcess : fixture.Isolated).BaseAddress!;

    private string Output(string app) => app == InProcessApp ? fixture.InProcessOutput : fixture.IsolatedOutput;

    private static byte[] Request(Uri address, params string[] headers) => Encoding.ASCII.GetBytes(
        $"POST /api/sign HTTP/1.1\r\nHost: {address.Authority}\r\nContent-Type: application/json\r\n{string.Concat(headers.Select(h => h + "\r\n"))}\r\n");

    private static async Task<RawHttpOutcome> SendAsync(Uri address, byte[] head, byte[] body)
    {
        using var client = await RawHttpClient.ConnectAsync(address);
        var receive = client.ReadResponseAsync(AnswerTimeout);
        await client.SendUntilAnsweredAsync([head, body], receive);
        return await receive;
    }

    /// <summary>Waits (bounded) until a line holding one of <paramref name="texts"/> follows <paramref name="mark"/>.</summary>
    private async Task<bool> WaitForLineAsync(string app, (int Start, int End) mark, string[] texts, TimeSpan timeout)
    {
        var waited = Stopwatch.StartNew();
        while (!texts.Any(t => Output(app)[mark.End..].Contains(t, StringComparison.Ordinal)))
        {
            if (waited.Elapsed > timeout)
            {
                return false;
            }

            await Task.Delay(100);
        }

        return true;
    }

    /// <summary>The lines between <paramref name="mark"/> and a new marker, signed now.</summary>
    private async Task<IReadOnlyList<string>> LinesSinceAsync(string app, (int Start, int End) mark) =>
        (await Marker(app).SinceAsync(mark)).Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.TrimEnd('\r')).ToList();

    private Task<(int Start, int End)> SignMarkerAsync(string app) => Marker(app).PlaceAsync();

    private SignLogMarker Marker(string app) => app == InProcessApp ? _inProcessLog : _isolatedLog;

    [GeneratedRegex(@"^\s+at \S+\(|^\s*---> ")]
    private static partial Regex StackFrame();
}
