using System.Globalization;
using System.Net;
using System.Text;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// What a client can do to <c>/api/sign</c> on the wire, against the published isolated app in tools/WorkerHost: raw
/// sockets where HttpClient cannot express the attack (a Content-Length it does not keep, a half-sent body, a trickle,
/// an endless chunked body). The in-process app answered some of these with 500 because its binding read the body
/// first; here each gets its own 4xx or a closed connection, nothing is signed, and the host stays healthy. What the
/// host logged for an attack is read up to a flush marker (<see cref="SignLogMarker"/>), so a late line is not missed.
/// </summary>
public sealed class IsolatedHttpAttackTests(IsolatedAttackHostFixture fixture, ITestOutputHelper output) : IClassFixture<IsolatedAttackHostFixture>
{
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(30);

    private readonly SignLogMarker _log = new(fixture.Client, () => fixture.Host.Output);

    [Theory]
    [InlineData(3L * 1024 * 1024)]
    [InlineData(32L * 1024 * 1024)]
    public async Task Sign_ContentLengthAboveTheHostLimitAttack_HostsBare500NothingSigned(long declared)
    {
        // Arrange: a declared length above the host's FUNCTIONS_REQUEST_BODY_SIZE_LIMIT (as deployed: the app's
        // Http:MaxRequestBodyBytes plus 1/128 for chunk framing), then a few bytes; the connection stays open.
        var mark = await _log.PlaceAsync();
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", $"Content-Length: {declared}"));
        await client.SendAsync("{\"widgets\":["u8.ToArray());

        // Act
        var outcome = await client.ReadResponseAsync(AnswerTimeout);
        output.WriteLine(outcome.ToString());

        // Assert: the host's Kestrel refuses the body from its length as the forwarder starts copying it, the forward
        // fails, and the host fails the invocation: its ExceptionMiddleware's 500 with no body, as the Functions host
        // answers (docs/security.md); nothing signed, and no fault but that one.
        AssertHostsBare500(outcome);
        var since = await _log.SinceAsync(mark);
        Assert.Empty(SignLogMarker.SignedLines(since));
        AssertOnlyTheFailedForward(since, "RequestBodyClient");
    }

    [Fact]
    public async Task Sign_ShortBodyAttack_ConnectionClosedWithoutAnswerNotSignedAndNever500()
    {
        // Arrange: Content-Length 100000, 1,000 bytes of a real envelope, then the client's send side ends (FIN).
        var mark = await _log.PlaceAsync();
        var prefix = Vector.Load("seed-3000-widgets").Input[..1_000];
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", "Content-Length: 100000"));
        await client.SendAsync(prefix);

        // Act
        client.ShutdownSend();
        var outcome = await client.ReadResponseAsync(AnswerTimeout);
        output.WriteLine(outcome.ToString());

        // Assert: the host's Kestrel, reading the body, meets the end of the request content and closes the connection
        // without an answer (on purpose: Kestrel's Http1MessageBody.ThrowUnexpectedEndOfRequestContent), so no status,
        // least of all a 500, reaches the client; the connection ends at once rather than hanging; nothing is signed.
        Assert.Null(outcome.Response);
        Assert.DoesNotContain("timed out", outcome.Failure, StringComparison.Ordinal);
        var since = await _log.SinceAsync(mark);
        Assert.Empty(SignLogMarker.SignedLines(since));

        // When the forward had begun sending the body as the client's ended, the host's retry handler reports the failed
        // copy of the client's content once (then stops: content cannot be sent twice). That line is the client's short
        // body, not a fault of ours; every other fault still fails the test.
        AssertNoServerFault(string.Join('\n', since.Split('\n').Where(line => !line.Contains(ClientBodyCopyFailed, StringComparison.Ordinal))));
    }

    private const string ClientBodyCopyFailed = "forwarding to the worker failed (Error while copying content to a stream.)";

    [Fact]
    public async Task Sign_ClientAbortsMidBodyAttack_NoSignatureAndTheServiceStaysHealthy()
    {
        // Arrange: the ~1 MB seed envelope's headers with Expect: 100-continue, so the client sends its body only once
        // the request is on its way to the worker (else the abort may end the forward before the worker sees anything,
        // and the attack never reaches the app); then half the body, and the socket is closed.
        var seed = Vector.Load("seed-3000-widgets");
        var body = seed.Input;
        var mark = await _log.PlaceAsync();
        using (var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress))
        {
            await client.SendAsync(Headers("POST", "/api/sign", $"Expect: 100-continue\r\nContent-Length: {body.Length}"));
            var interim = await client.ReadInterimStatusAsync(AnswerTimeout);
            Assert.True(interim == 100, $"the host answered {interim?.ToString(CultureInfo.InvariantCulture) ?? "nothing"}, not 100 Continue");
            await client.SendAsync(body[..(body.Length / 2)]);
        }

        // Act: the next client, with the whole envelope.
        using var served = await fixture.Client.PostAsync("/api/sign", Json(body));
        var json = JObject.Parse(await served.Content.ReadAsStringAsync());
        var since = await _log.SinceAsync(mark);
        output.WriteLine(since);

        // Assert: the aborted request signed nothing: the one signature up to the marker is the served request's, with
        // the known signature; no fault.
        Assert.Equal(HttpStatusCode.OK, served.StatusCode);
        Assert.Equal(seed.SignatureHex, (string?)json["signature"]);
        Assert.Single(SignLogMarker.SignedLines(since));
        Assert.Contains("client closed request before it was answered; nothing was signed", since, StringComparison.Ordinal);

        // The host's retry handler may see the aborted body as a failed copy and say it retries (a warning, as the real
        // host's RetryProxyHandler logs): the client's doing, not a fault. Anything failing is still a fault.
        AssertNoServerFault(string.Join('\n', since.Split('\n').Where(l => !l.StartsWith("WorkerHost: warn: forwarding to the worker failed (Error while copying content to a stream.)", StringComparison.Ordinal))));
    }

    [Fact]
    public async Task Sign_SlowContentLengthBodyAttack_HostsBare500BeforeTheBodyIsSentNothingSigned()
    {
        // Arrange: 10 bytes every 200 ms (50 B/s): below the app's minimum here (1 MiB/s after a 1 s grace period) and
        // the host's own Kestrel's (its default, 240 B/s after 5 s, which the Functions host keeps).
        var mark = await _log.PlaceAsync();
        var body = Vector.Load("one-widget").Input;
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", $"Content-Length: {body.Length}"));

        // Act
        var receive = client.ReadResponseAsync(AnswerTimeout);
        var sent = await client.TrickleAsync(body, 10, TimeSpan.FromMilliseconds(200), receive);
        var outcome = await receive;
        output.WriteLine($"{outcome}; sent {sent} of {body.Length} bytes");

        // Assert: the worker answered 408 after its grace period, but over HTTP/1.1 the forwarder holds that answer until
        // the body was sent; the host's Kestrel stops the trickle first, the forward fails and the host answers its bare
        // 500, before the whole body was sent (the count is the client's clock: 200 ms a step); nothing signed.
        AssertHostsBare500(outcome);
        Assert.True(sent < body.Length, $"the whole body ({sent} bytes) was sent before the answer");
        var since = await _log.SinceAsync(mark);
        Assert.Contains("Sign rejected a request with 408", since, StringComparison.Ordinal);
        Assert.Empty(SignLogMarker.SignedLines(since));
        AssertOnlyTheFailedForward(since, "RequestBodyClient");
    }

    [Fact]
    public async Task Sign_ChunkedBodyAboveTheLimitAttack_HostsBare500NotAfterTheWholeBodyNothingSigned()
    {
        // Arrange: a chunked body (no length to refuse it by) that goes on past Http:MaxRequestBodyBytes (2 MiB).
        var mark = await _log.PlaceAsync();
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", "Transfer-Encoding: chunked"));

        // Act
        var receive = client.ReadResponseAsync(AnswerTimeout);
        var sent = await client.SendChunkedAsync(24 * 1024 * 1024, 64 * 1024, receive);
        var outcome = await receive;
        output.WriteLine($"{outcome}; sent {sent:N0} body bytes");

        // Assert: whatever the worker answers at 2 MiB, the HTTP/1.1 forwarder holds it while the client keeps sending;
        // the host's Kestrel stops the body at its own limit (2 MiB + 16 KiB), the forward fails and the host answers
        // its bare 500, long before the 24 MiB the client would send; nothing signed.
        AssertHostsBare500(outcome);
        Assert.True(sent < 24 * 1024 * 1024, $"all {sent:N0} bytes were taken");
        var since = await _log.SinceAsync(mark);
        Assert.Empty(SignLogMarker.SignedLines(since));
        AssertOnlyTheFailedForward(since, "RequestBodyClient");
    }

    [Theory]
    [InlineData("ffffffffffffffffffff")]
    [InlineData("zz")]
    public async Task Sign_MalformedChunkSizeAttack_HostsBare500NothingSigned(string chunkSize)
    {
        // Arrange: a chunk-size line that overflows a 64-bit count, or is not hex at all.
        var mark = await _log.PlaceAsync();
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);

        // Act
        await client.SendAsync([.. Headers("POST", "/api/sign", "Transfer-Encoding: chunked"), .. Encoding.ASCII.GetBytes($"{chunkSize}\r\n{{}}\r\n0\r\n\r\n")]);
        var outcome = await client.ReadResponseAsync(AnswerTimeout);
        output.WriteLine(outcome.ToString());

        // Assert: the host's Kestrel refuses the framing while its forwarder copies the body (an overflow surfaces as an
        // IOException, "zz" as a bad-request exception: both a failure reading the client's body), the forward fails,
        // and the host answers its bare 500; the worker never signs anything.
        AssertHostsBare500(outcome);
        var since = await _log.SinceAsync(mark);
        Assert.Empty(SignLogMarker.SignedLines(since));
        AssertOnlyTheFailedForward(since, "RequestBodyClient");
    }

    [Fact]
    public async Task Sign_WrongMethod_405WithAllowPost()
    {
        // Act
        using var response = await fixture.Client.GetAsync("/api/sign");

        // Assert
        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        Assert.Equal(["POST"], response.Content.Headers.Allow);
        Assert.False(response.Headers.Contains(SignatureHeaders.Signature));
    }

    [Fact]
    public async Task Post_UnknownRoute_404()
    {
        // Act
        using var response = await fixture.Client.PostAsync("/api/sign-everything", Json(Vector.Load("one-widget").Input));

        // Assert
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.False(response.Headers.Contains(SignatureHeaders.Signature));
    }

    private static ByteArrayContent Json(byte[] body)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json");
        return content;
    }

    /// <summary>No 500, no unhandled exception, no failed forward or invocation in <paramref name="since"/> (the host's output between two markers).</summary>
    private static void AssertNoServerFault(string since)
    {
        foreach (var fault in new[] { "Unhandled exception", "unhandled exception", "fail: ", " 500", "forwarding to the worker failed", ") failed: " })
        {
            Assert.False(since.Contains(fault, StringComparison.Ordinal), $"the host output has '{fault}':\n{since}");
        }
    }

    /// <summary>
    /// The Functions host's answer when its forward to the worker failed: ExceptionMiddleware's 500 with no body
    /// (azure-functions-host@89dc438d, src/WebJobs.Script.WebHost/Middleware/ExceptionMiddleware.cs), never a signature.
    /// </summary>
    private static void AssertHostsBare500(RawHttpOutcome outcome)
    {
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(500, response.Status);
        Assert.Empty(response.Body);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
    }

    /// <summary>The host's one error is the failed forward with <paramref name="error"/>; nothing else failed.</summary>
    private static void AssertOnlyTheFailedForward(string since, string error)
    {
        var failures = since.Split('\n').Where(l => l.Contains("WorkerHost: fail: ", StringComparison.Ordinal)).ToList();
        var failure = Assert.Single(failures);
        Assert.Contains($"Failed to proxy request with ForwarderError: {error}", failure, StringComparison.Ordinal);
        Assert.DoesNotContain("nhandled exception", since, StringComparison.Ordinal);
    }

    private byte[] Headers(string method, string path, string framing) => Encoding.ASCII.GetBytes(
        $"{method} {path} HTTP/1.1\r\nHost: {fixture.Host.BaseAddress.Authority}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n");
}

/// <summary>
/// Azurite (the host's queue listener needs storage) and the isolated app in tools/WorkerHost with small limits: bodies
/// up to 2 MiB (the ~1 MB seed fits, an attack need not send much), at least 1 MiB/s after a 1 s grace period.
/// </summary>
public sealed class IsolatedAttackHostFixture : IsolatedHostFixture
{
    /// <summary>The app's body limit here.</summary>
    public const long BodyLimit = 2 * 1024 * 1024;

    /// <summary>The host's body limit here, as a deployment sets it: the app's plus 1/128 for chunk framing.</summary>
    public static readonly long HostBodyLimit = new HttpOptions { MaxRequestBodyBytes = (int)BodyLimit }.HostBodyLimit;

    protected override IReadOnlyDictionary<string, string> Overrides { get; } = new Dictionary<string, string>
    {
        [HttpOptions.MaxRequestBodyBytesSetting] = BodyLimit.ToString(CultureInfo.InvariantCulture),
        ["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"] = HostBodyLimit.ToString(CultureInfo.InvariantCulture),
        [HttpOptions.MinDataRateBytesPerSecondSetting] = (1024 * 1024).ToString(CultureInfo.InvariantCulture),
        [HttpOptions.DataRateGracePeriodSetting] = "00:00:01",
    };
}
