using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text;
using FunctionApp.Tests.Infrastructure;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// What a client can do to <c>/api/sign</c> on the wire, against the published isolated app in tools/WorkerHost: raw
/// sockets where HttpClient cannot express the attack (a Content-Length it does not keep, a half-sent body, a trickle,
/// an endless chunked body). The in-process app answered some of these with 500 because its binding read the body
/// first; here each gets its own status and problem, quickly, and the host stays healthy.
/// </summary>
public sealed class IsolatedHttpAttackTests(IsolatedAttackHostFixture fixture, ITestOutputHelper output) : IClassFixture<IsolatedAttackHostFixture>
{
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(30);

    [Theory]
    [InlineData(3L * 1024 * 1024)]
    [InlineData(32L * 1024 * 1024)]
    public async Task Sign_ContentLengthAboveTheLimitAttack_413NamingTheLimitBeforeReadingTheBody(long declared)
    {
        // Arrange: a huge declared length, then only a few bytes; the connection stays open, so only a refusal made from
        // the declaration (not from reading) can answer before the timeout. As deployed (infra sets both, AppSettingsTests
        // holds them), the host's FUNCTIONS_REQUEST_BODY_SIZE_LIMIT is Http:MaxRequestBodyBytes plus 1/128 for chunk
        // framing, so a length above that is refused by the host first, from Content-Length, before forwarding a byte. (A
        // length between the two limits gets the app's own 413, which waits behind the forwarder until the body was
        // sent: HTTP/1.1 forwarding answers only then; ChunkedFramingAttackTests sends such a body whole.)
        var mark = fixture.Host.Output.Length;
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", $"Content-Length: {declared}"));
        await client.SendAsync("{\"widgets\":["u8.ToArray());

        // Act
        var outcome = await client.ReadResponseAsync(AnswerTimeout);
        output.WriteLine(outcome.ToString());

        // Assert: 413 naming the limit, quickly, nothing signed, no fault.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        Assert.Equal(413, response.Status);
        var detail = response.MediaType == "application/problem+json"
            ? (string?)response.Json["detail"] ?? string.Empty
            : Encoding.UTF8.GetString(response.Body);
        Assert.True(
            detail.Contains(HttpOptions.MaxRequestBodyBytesSetting, StringComparison.Ordinal) ||
            detail.Contains(ProblemMapper.HostBodyLimitSetting, StringComparison.Ordinal) ||
            detail.Contains(IsolatedAttackHostFixture.HostBodyLimit.ToString(CultureInfo.InvariantCulture), StringComparison.Ordinal),
            $"the answer names no limit: {detail}");
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.True(outcome.Elapsed < TimeSpan.FromSeconds(5), $"answered after {outcome.Elapsed}: not from the declaration");
        AssertNoServerFault(mark);
    }

    [Fact]
    public async Task Sign_ShortBodyAttack_400NotSignedAndNever500()
    {
        // Arrange: Content-Length 100000, 1,000 bytes of a real envelope, then the client's send side ends (FIN).
        var mark = fixture.Host.Output.Length;
        var prefix = Vector.Load("seed-3000-widgets").Input[..1_000];
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", "Content-Length: 100000"));
        await client.SendAsync(prefix);

        // Act
        client.ShutdownSend();
        var outcome = await client.ReadResponseAsync(AnswerTimeout);
        output.WriteLine(outcome.ToString());

        // Assert: observed, no response at all: the host's Kestrel sees the FIN while reading the body, fires RequestAborted
        // (the client is gone), YARP stops and WorkerHost, like the Functions host, writes nothing to a gone client; the
        // worker's read fails and the app answers its unseen 400 client-closed-request. A response, if any, must be a 400.
        if (outcome.Response is { } response)
        {
            Assert.Equal(400, response.Status);
            Assert.Equal("application/problem+json", response.MediaType);
            Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        }

        Assert.True(outcome.Elapsed < TimeSpan.FromSeconds(10), $"took {outcome.Elapsed}");
        AssertNoServerFault(mark);
    }

    [Fact]
    public async Task Sign_ClientAbortsMidBodyAttack_NoSignatureAndTheServiceStaysHealthy()
    {
        // Arrange: the ~1 MB seed envelope's headers and half its body, then the socket is closed.
        var seed = Vector.Load("seed-3000-widgets");
        var body = seed.Input;
        var mark = fixture.Host.Output.Length;
        using (var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress))
        {
            await client.SendAsync(Headers("POST", "/api/sign", $"Content-Length: {body.Length}"));
            await client.SendAsync(body[..(body.Length / 2)]);
        }

        // Act: the next client, with the whole envelope.
        await WaitForOutputAsync(mark, "client closed", TimeSpan.FromSeconds(10));
        using var served = await fixture.Client.PostAsync("/api/sign", Json(body));
        var json = JObject.Parse(await served.Content.ReadAsStringAsync());
        var since = fixture.Host.Output[mark..];
        output.WriteLine(since);

        // Assert: served with the known signature; the aborted request signed nothing and was logged as a client closing.
        Assert.Equal(HttpStatusCode.OK, served.StatusCode);
        Assert.Equal(seed.SignatureHex, (string?)json["signature"]);
        // Whether the worker's read of the aborted body had started (its event 4003) or the host refused the body first
        // is a race; either way the one signature is the served request's.
        Assert.Single(SignedLines(since));
        AssertNoServerFault(mark);
    }

    [Fact]
    public async Task Sign_SlowContentLengthBodyAttack_408WithinTheGracePeriod()
    {
        // Arrange: 10 bytes every 200 ms (50 B/s) where 1 MiB/s is required after a 1 s grace period.
        var mark = fixture.Host.Output.Length;
        var body = Vector.Load("one-widget").Input;
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", $"Content-Length: {body.Length}"));

        // Act
        var started = Stopwatch.StartNew();
        var receive = client.ReadResponseAsync(AnswerTimeout);
        var sent = await client.TrickleAsync(body, 10, TimeSpan.FromMilliseconds(200), receive);
        var outcome = await receive;
        output.WriteLine($"{outcome}; sent {sent} of {body.Length} bytes");

        // Assert: refused long before the body could have arrived (it would take ~{body.Length / 50} s), not signed.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        // Observed: the host's own Kestrel (240 B/s after 5 s) answers, because over HTTP/1.1 the forwarder holds the
        // worker's earlier 408 until the body is sent; the app's problem is asserted whenever it is the one delivered.
        Assert.Equal(408, response.Status);
        if (response.MediaType == "application/problem+json")
        {
            Assert.Equal(ProblemTypes.RequestTimeout, (string?)response.Json["type"]);
            Assert.Contains(HttpOptions.MinDataRateBytesPerSecondSetting, (string?)response.Json["detail"], StringComparison.Ordinal);
        }
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.True(sent < body.Length, $"the whole body ({sent} bytes) was sent before the answer");
        Assert.True(started.Elapsed < TimeSpan.FromSeconds(15), $"took {started.Elapsed}");
        AssertNoServerFault(mark);
    }

    [Fact]
    public async Task Sign_ChunkedBodyAboveTheLimitAttack_413()
    {
        // Arrange: a chunked body (no length to refuse it by) that goes on past Http:MaxRequestBodyBytes (2 MiB).
        var mark = fixture.Host.Output.Length;
        using var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
        await client.SendAsync(Headers("POST", "/api/sign", "Transfer-Encoding: chunked"));

        // Act
        var receive = client.ReadResponseAsync(AnswerTimeout);
        var sent = await client.SendChunkedAsync(24 * 1024 * 1024, 64 * 1024, receive);
        var outcome = await receive;
        output.WriteLine($"{outcome}; sent {sent:N0} body bytes");

        // Assert: refused once past the limit, not after the 24 MiB the client would send.
        var response = Assert.IsType<RawHttpResponse>(outcome.Response);
        // Observed: the host's 413 at its own limit, 2 MiB + 16 KiB here (the worker's 413 at 2 MiB is held by the HTTP/1.1
        // forwarder); the host's answer names no setting, the app's names Http:MaxRequestBodyBytes.
        Assert.Equal(413, response.Status);
        if (response.MediaType == "application/problem+json")
        {
            Assert.Equal(ProblemTypes.BodyTooLarge, (string?)response.Json["type"]);
            Assert.Contains(HttpOptions.MaxRequestBodyBytesSetting, (string?)response.Json["detail"], StringComparison.Ordinal);
        }

        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.True(sent < 24 * 1024 * 1024, $"all {sent:N0} bytes were taken");
        AssertNoServerFault(mark);
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

    private byte[] Headers(string method, string path, string framing) => Encoding.ASCII.GetBytes(
        $"{method} {path} HTTP/1.1\r\nHost: {fixture.Host.BaseAddress.Authority}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n");

    private static IEnumerable<string> SignedLines(string text) =>
        text.Split('\n').Where(l => l.Contains("Sign signed ", StringComparison.Ordinal));

    /// <summary>No 500, no unhandled exception, no failed forward or invocation in the host's output since <paramref name="mark"/>.</summary>
    private void AssertNoServerFault(int mark)
    {
        var since = fixture.Host.Output[mark..];
        foreach (var fault in new[] { "Unhandled exception", "unhandled exception", "fail: ", " 500", "forwarding to the worker failed", ") failed: " })
        {
            Assert.False(since.Contains(fault, StringComparison.Ordinal), $"the host output has '{fault}':\n{since}");
        }
    }

    private async Task WaitForOutputAsync(int mark, string text, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (!fixture.Host.Output[mark..].Contains(text, StringComparison.Ordinal) && deadline.Elapsed < timeout)
        {
            await Task.Delay(50);
        }
    }
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
