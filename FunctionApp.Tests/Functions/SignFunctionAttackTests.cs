using FunctionApp.Functions;
using WidgetSigning.Http;
using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.IO;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// At the HTTP functions, in the WebJobs host: what a client can cause – disconnects, broken bodies, the host's
/// own limit, a client gone before the answer is written, huge names – is never a 500, signs nothing it should not, and
/// returns every pooled stream.
/// </summary>
public sealed class SignFunctionAttackTests : IClassFixture<SignHostFixture>
{
    private readonly FunctionsTestHost _host;

    public SignFunctionAttackTests(SignHostFixture fixture) => _host = fixture.Host;

    public static TheoryData<string> Disconnects() => new() { "cancelled", "reset" };

    [Theory]
    [MemberData(nameof(Disconnects))]
    public async Task RunAsync_ClientDisconnectsWhileSendingBodyAttack_400ClientClosedAndNothingSigned(string how)
    {
        // Arrange: half an envelope arrives, then the connection goes (RequestAborted fires, the read fails).
        using var aborted = new CancellationTokenSource();
        var half = Vector.Load("one-widget").Input[..40];
        var request = ChunkedRequest(new FailingStream(
            half,
            () => how == "cancelled" ? new OperationCanceledException(aborted.Token) : new IOException("Connection reset by peer"),
            aborted.Cancel));
        request.HttpContext.RequestAborted = aborted.Token;
        var pool = _host.GetService<RecyclableMemoryStreamManager>();
        var logsBefore = _host.Logs.Entries.Count;

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert: a 400 that no one receives (the problem is not even written to the gone connection), logged as such by
        // this request (the fixture's log is shared by the class; its tests run one at a time).
        var logged = _host.Logs.Entries.Skip(logsBefore).ToList();
        Assert.Equal(400, response.Status);
        Assert.Empty(response.Body);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.Single(logged, e => e.EventId.Id == 4003);
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
    }

    [Theory]
    [InlineData(413, 413, ProblemTypes.ChunkFramingTooLarge, "FUNCTIONS_REQUEST_BODY_SIZE_LIMIT")]
    [InlineData(400, 400, ProblemTypes.InvalidRequest, "could not be read")]
    public async Task RunAsync_HostRefusesTheBodyWhileItIsRead_Returns4xxNot500(int kestrelStatus, int expected, string type, string detail)
    {
        // Arrange: Kestrel throws BadHttpRequestException from the body stream (its size limit, bad chunked framing). The
        // 413 comes after one byte of envelope: the chunk framing the host counts with it was too large.
        var request = ChunkedRequest(new FailingStream([(byte)'{'], () => new BadHttpRequestException("Request body too large or malformed.", kestrelStatus)));

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert
        Assert.Equal(expected, response.Status);
        Assert.Equal(type, (string?)response.Json["type"]);
        Assert.Contains(detail, (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true, "cancelled")]
    [InlineData(true, "reset")]
    [InlineData(false, "cancelled")]
    [InlineData(false, "reset")]
    public async Task ExecuteResult_ClientGoneWhileAnswerIsWrittenAttack_NoExceptionAndPoolEmpty(bool canonicalBody, string how)
    {
        // Arrange: the envelope is signed, then the client disappears before the response is written.
        var pool = _host.GetService<RecyclableMemoryStreamManager>();
        using var aborted = new CancellationTokenSource();
        var request = TestRequests.Post("/api/sign", Vector.Load("one-widget").Input, query: canonicalBody ? "?output=canonical" : null);
        request.HttpContext.RequestAborted = aborted.Token;
        using var scope = _host.Services.CreateScope();
        var function = ActivatorUtilities.CreateInstance<SignFunction>(scope.ServiceProvider);
        var result = await function.RunAsync(request);
        Assert.IsType<SignatureResult>(result);
        request.HttpContext.Response.Body = new FailingStream([], () => how == "cancelled" ? new OperationCanceledException(aborted.Token) : new IOException("Broken pipe"), aborted.Cancel);

        // Act
        var error = await Record.ExceptionAsync(() => result.ExecuteResultAsync(new ActionContext(request.HttpContext, new RouteData(), new ActionDescriptor())));

        // Assert
        Assert.Null(error);
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
    }

    [Fact]
    public async Task RunAsync_HugeUnknownMemberNameAttack_ProblemAndLogsStaySmall()
    {
        // Arrange: a 30,000-character member name.
        var name = new string('m', 30_000);
        var body = System.Text.Encoding.UTF8.GetBytes($$"""{"widgets":[],"{{name}}":"x"}""");

        // Act
        var response = await _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", body));

        // Assert
        Assert.Equal(400, response.Status);
        Assert.True(response.Body.Length < 1_000, $"problem is {response.Body.Length} bytes");
        Assert.Contains("longer than 64 bytes", (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.DoesNotContain(_host.Logs.Entries, e => (e.Message ?? string.Empty).Contains(name[..1_000], StringComparison.Ordinal));
    }

    private static HttpRequest ChunkedRequest(Stream body)
    {
        var request = TestRequests.Post("/api/sign", [], sendContentLength: false, chunked: true);
        request.Body = body;
        return request;
    }
}
