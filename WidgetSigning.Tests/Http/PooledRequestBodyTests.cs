using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.IO;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Http;

/// <summary>
/// How the core reads the host's refusal of a body at the host's own limit. The host's Kestrel
/// counts a chunked body's framing with its data and says only "too large"; what the core has read of the envelope by
/// then tells the two apart. The socket-level attacks are in Isolated/ChunkedFramingAttackTests.
/// </summary>
public sealed class PooledRequestBodyTests
{
    private const long EnvelopeLimit = 16 * 1024 * 1024;
    private const long HostLimit = EnvelopeLimit + (EnvelopeLimit / HttpOptions.ChunkFramingShare);

    private static readonly RecyclableMemoryStreamManager Streams = new();

    [Fact]
    public async Task ReadAsync_HostRefusesAChunkedBodyWellWithinTheEnvelopeLimitAttack_ChunkFramingTooLargeNamingTheHostLimit()
    {
        // Arrange: 516 envelope bytes, then the host's 413: what it counted beyond them was chunk framing (an extension).
        var request = Chunked(new byte[516], hostLimit: HostLimit);

        // Act
        var error = await Record.ExceptionAsync(() => PooledRequestBody.ReadAsync(request, Streams, EnvelopeLimit, CancellationToken.None));

        // Assert
        var framing = ProblemAssert.Is(Problems.Types.ChunkFramingTooLarge, error);
        Assert.Contains(" 516 bytes of envelope", framing.Problem.Detail, StringComparison.Ordinal);
        Assert.Contains($"limit of {HostLimit} bytes", framing.Problem.Detail, StringComparison.Ordinal);
        Assert.Contains("16908288 bytes (setting FUNCTIONS_REQUEST_BODY_SIZE_LIMIT)", framing.Message, StringComparison.Ordinal);
        Assert.Contains("only 516 bytes of envelope", framing.Message, StringComparison.Ordinal);
        Assert.Contains("chunk extensions", framing.Message, StringComparison.Ordinal);
        Assert.True(ProblemMapper.TryMap(framing, out var problem));
        Assert.Equal((413, ProblemTypes.ChunkFramingTooLarge), (problem.Status, problem.Type));
    }

    [Fact]
    public async Task ReadAsync_HostRefusesAChunkedBodyNearTheEnvelopeLimit_BodyTooLargeNamingBothLimits()
    {
        // Arrange: the host may have counted up to its buffer's worth of envelope the core has not read yet, so a refusal
        // this close to the envelope limit may be an envelope over it: the answer says both.
        var received = (int)(EnvelopeLimit - (512 * 1024));
        var request = Chunked(new byte[received], hostLimit: HostLimit);

        // Act
        var error = await Record.ExceptionAsync(() => PooledRequestBody.ReadAsync(request, Streams, EnvelopeLimit, CancellationToken.None));

        // Assert
        var tooLarge = ProblemAssert.Is(Problems.Types.BodyTooLarge, error);
        Assert.Contains($"limit of {EnvelopeLimit} bytes", tooLarge.Problem.Detail, StringComparison.Ordinal);
        Assert.Contains($"limit of {EnvelopeLimit} bytes (setting {HttpOptions.MaxRequestBodyBytesSetting})", tooLarge.Message, StringComparison.Ordinal);
        Assert.Contains($"{HostLimit} bytes (setting FUNCTIONS_REQUEST_BODY_SIZE_LIMIT)", tooLarge.Message, StringComparison.Ordinal);
        Assert.True(ProblemMapper.TryMap(tooLarge, out var problem));
        Assert.Equal((413, ProblemTypes.BodyTooLarge), (problem.Status, problem.Type));
    }

    [Fact]
    public async Task ReadAsync_HostRefusesABodyWithContentLength_KestrelsRefusalNamingTheHostSetting()
    {
        // Arrange: with Content-Length there is no framing; the host's limit alone refused it (set below the app's).
        var request = Chunked(new byte[516], hostLimit: 1024);
        request.Headers.TransferEncoding = default;
        request.ContentLength = 4096;

        // Act
        var error = await Record.ExceptionAsync(() => PooledRequestBody.ReadAsync(request, Streams, EnvelopeLimit, CancellationToken.None));

        // Assert
        var refusal = Assert.IsType<BadHttpRequestException>(error);
        Assert.True(ProblemMapper.TryMap(refusal, out var problem));
        Assert.Equal((413, ProblemTypes.BodyTooLarge), (problem.Status, problem.Type));
        Assert.Contains("FUNCTIONS_REQUEST_BODY_SIZE_LIMIT", problem.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReadAsync_SlowUploadDeclaringALargeBodyAttack_HoldsOnlyTheBudgetOfWhatArrived()
    {
        // Arrange: a budget of 1 MiB; a client declares 16 MiB, sends 10 bytes and then trickles (here: nothing more).
        var budget = new EnvelopeMemoryBudget(1024 * 1024, TimeSpan.Zero);
        var pipe = new System.IO.Pipelines.Pipe();
        await pipe.Writer.WriteAsync(new byte[10]);
        var request = TestRequests.Post("/api/sign", [], sendContentLength: false, chunked: false);
        request.ContentLength = EnvelopeLimit;
        request.Body = pipe.Reader.AsStream();
        using var slowLease = budget.Lease();
        using var stop = new CancellationTokenSource();
        var slow = PooledRequestBody.ReadAsync(request, Streams, EnvelopeLimit, slowLease, null, stop.Token);
        while (slowLease.Charged == 0 && !slow.IsCompleted)
        {
            await Task.Delay(10);
        }

        // Act: another request needs most of the budget at once.
        using var normalLease = budget.Lease();
        var error = await Record.ExceptionAsync(() => normalLease.CoverAsync(768 * 1024, CancellationToken.None).AsTask());

        // Assert: the slow client holds one pooled block, not the 16 MiB it announced, and the other request got its room.
        Assert.False(slow.IsCompleted);
        Assert.Null(error);
        Assert.InRange(slowLease.Charged, 1, 128 * 1024);
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => slow);
    }

    /// <summary>A chunked request whose body hands out <paramref name="envelope"/>, then fails as Kestrel does at its limit.</summary>
    private static HttpRequest Chunked(byte[] envelope, long hostLimit)
    {
        var request = TestRequests.Post("/api/sign", [], sendContentLength: false, chunked: true);
        request.Body = new FailingStream(envelope, () => new BadHttpRequestException("Request body too large.", StatusCodes.Status413PayloadTooLarge));
        request.HttpContext.Features.Set<IHttpMaxRequestBodySizeFeature>(new HostBodyLimitFeature { MaxRequestBodySize = hostLimit });
        return request;
    }

    /// <summary>The host's body limit as Kestrel exposes it to the request.</summary>
    private sealed class HostBodyLimitFeature : IHttpMaxRequestBodySizeFeature
    {
        public bool IsReadOnly => true;

        public long? MaxRequestBodySize { get; set; }
    }
}
