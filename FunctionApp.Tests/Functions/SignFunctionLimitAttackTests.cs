using System.Globalization;
using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.IO;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// At <c>/api/sign</c> in the WebJobs host: the canonical size bound, the memory budget and the slow
/// client limits each answer with their own problem naming the setting, never 500, and leave the pool and budget empty.
/// </summary>
public sealed class SignFunctionLimitAttackTests : IAsyncLifetime
{
    private const long Budget = MemoryBudgetOptions.MinBytesInFlight;

    private FunctionsTestHost? _host;

    private FunctionsTestHost Host => _host ?? throw new InvalidOperationException("host not started");

    public async Task InitializeAsync() => _host = await FunctionsTestHost.StartAsync(
        new Dictionary<string, string?>
        {
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["Http:MaxRequestBodyBytes"] = (4 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
            ["Envelopes:MaxCanonicalBytes"] = (6 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
            ["MemoryBudget:MaxBytesInFlight"] = Budget.ToString(CultureInfo.InvariantCulture),
            ["MemoryBudget:MaxWait"] = "00:00:00.2",
            ["Http:DataRateGracePeriod"] = "00:00:00.3",
            ["Http:MinDataRateBytesPerSecond"] = "1048576",
        },
        typeof(SignFunction));

    public async Task DisposeAsync()
    {
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }
    }

    [Fact]
    public async Task RunAsync_CanonicalAmplificationAttack_413NamingTheSettingAndNothingSigned()
    {
        // Arrange: 4 MiB of raw U+0085 (2 bytes each) would be a 12 MiB canonical form of \u0085 escapes.
        var body = AttackBodies.ControlCharacterEnvelope(4 * 1024 * 1024, "nel");

        // Act
        var response = await Host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", body, query: "?output=canonical"));

        // Assert
        Assert.Equal(413, response.Status);
        Assert.Equal(ProblemTypes.CanonicalTooLarge, (string?)response.Json["type"]);
        Assert.Contains(WidgetSigning.Envelopes.EnvelopeOptions.MaxCanonicalBytesSetting, (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        AssertNothingHeld();
    }

    [Fact]
    public async Task RunAsync_RawControlCharacterBodyAttack_400AtItsPath()
    {
        // Arrange: raw U+0001 (a 6-byte escape each in the canonical form), at this host's body limit.
        var body = AttackBodies.ControlCharacterEnvelope(4 * 1024 * 1024, "raw");

        // Act
        var response = await Host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", body, query: "?output=canonical"));

        // Assert
        Assert.Equal(400, response.Status);
        Assert.Equal(ProblemTypes.InvalidEnvelope, (string?)response.Json["type"]);
        Assert.Equal("$.widgets[0].property0", (string?)response.Json["jsonPath"]);
        AssertNothingHeld();
    }

    [Fact]
    public async Task RunAsync_MemoryBudgetSpentAttack_503WithRetryAfterNamingTheSettingThenServed()
    {
        // Arrange: everything the budget allows is held by requests in flight.
        var budget = Host.GetService<EnvelopeMemoryBudget>();
        var vector = Vector.Load("one-widget");
        var holder = budget.Lease();
        holder.Cover(Budget);

        // Act
        var refused = await Host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input));
        holder.Dispose();
        var served = await Host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", vector.Input));

        // Assert
        Assert.Equal(503, refused.Status);
        Assert.Equal(ProblemTypes.MemoryBudget, (string?)refused.Json["type"]);
        Assert.Contains(MemoryBudgetOptions.MaxBytesInFlightSetting, (string?)refused.Json["detail"], StringComparison.Ordinal);
        Assert.Equal("1", refused.Header("Retry-After"));
        Assert.Equal(200, served.Status);
        Assert.Equal(vector.SignatureHex, (string?)served.Json["signature"]);
        AssertNothingHeld();
    }

    [Fact]
    public async Task RunAsync_SlowBodyAttack_408RequestTimeoutAndNothingHeld()
    {
        // Arrange: 40 bytes, then nothing (the connection stays open) for ten times what the host allows 40 bytes
        // (0.3 s grace plus 40 bytes at 1 MiB/s); after that the client would end its body itself.
        var allowed = new HttpOptions { DataRateGracePeriod = TimeSpan.FromSeconds(0.3), MinDataRateBytesPerSecond = 1024 * 1024 }.TimeAllowedFor(40);
        var stalling = new StallingStream(Vector.Load("one-widget").Input[..40], allowed * 10);
        var request = TestRequests.Post("/api/sign", [], sendContentLength: false, chunked: true);
        request.Body = stalling;

        // Act
        var response = await Host.InvokeHttpAsync(SignFunction.Name, request);

        // Assert: the host cancelled the stalled read at the minimum rate, before the client's stall (ten times as long)
        // was over, not at the client's whim: a 408 naming the setting.
        Assert.Equal(408, response.Status);
        Assert.Equal(ProblemTypes.RequestTimeout, (string?)response.Json["type"]);
        Assert.Contains(HttpOptions.MinDataRateBytesPerSecondSetting, (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.True(stalling.CancelledByTheHost, "the stalled read was not cancelled");
        Assert.False(stalling.EndedByTheClient, $"the client's stall of {allowed * 10} ran out before the host refused the body");
        AssertNothingHeld();
    }

    [Fact]
    public async Task ExecuteResult_SlowReaderAttack_AnswerCutAtTheMinimumRateAndNothingHeld()
    {
        // Arrange: a 2 MiB canonical answer read at ~0.6 MiB/s; the minimum is 1 MiB/s after 0.3 s. The control: the
        // same answer read as fast as it is written.
        var body = AttackBodies.ControlCharacterEnvelope(2 * 1024 * 1024, "escaped");
        var fast = new SlowReaderStream(TimeSpan.Zero);
        var control = await WriteCanonicalAnswerAsync(body, fast);
        var slow = new SlowReaderStream(TimeSpan.FromMilliseconds(100));

        // Act
        var attack = await WriteCanonicalAnswerAsync(body, slow);

        // Assert: no exception (no 500) either way; the fast reader got the whole answer on an open connection, the
        // slow one a part of it and then the connection closed; every block back.
        Assert.Null(control.Error);
        Assert.Null(attack.Error);
        Assert.False(control.Aborted, "the fast reader's connection was closed");
        Assert.Equal(control.Length, fast.Written);
        Assert.True(attack.Aborted, "the slow reader's connection was left open");
        Assert.True(slow.Written < attack.Length, $"the slow reader got {slow.Written:N0} of {attack.Length:N0} bytes");
        AssertNothingHeld();
    }

    /// <summary>Runs the function on <paramref name="body"/> with <c>?output=canonical</c> and writes its answer to <paramref name="reader"/>.</summary>
    private async Task<(Exception? Error, bool Aborted, long? Length)> WriteCanonicalAnswerAsync(byte[] body, Stream reader)
    {
        var request = TestRequests.Post("/api/sign", body, query: "?output=canonical");
        var lifetime = new AbortRecordingLifetime();
        request.HttpContext.Features.Set<IHttpRequestLifetimeFeature>(lifetime);
        request.HttpContext.Response.Body = reader;
        using var scope = Host.Services.CreateScope();
        var function = ActivatorUtilities.CreateInstance<SignFunction>(scope.ServiceProvider);
        var result = await function.RunAsync(request);
        var error = await Record.ExceptionAsync(() => result.ExecuteResultAsync(new ActionContext(request.HttpContext, new RouteData(), new ActionDescriptor())));
        return (error, lifetime.Aborted, request.HttpContext.Response.ContentLength);
    }

    private void AssertNothingHeld()
    {
        var pool = Host.GetService<RecyclableMemoryStreamManager>();
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
        Assert.Equal(0, Host.GetService<EnvelopeMemoryBudget>().InUse);
    }

    /// <summary>
    /// A client that sends part of its body and then stalls with the connection open, for <paramref name="stall"/>, after
    /// which it ends the body (a short envelope) unless its read was cancelled first.
    /// </summary>
    private sealed class StallingStream(byte[] first, TimeSpan stall) : ForwardOnlyStream
    {
        private bool _sent;

        public bool CancelledByTheHost { get; private set; }

        public bool EndedByTheClient { get; private set; }

        public override bool CanWrite => false;

        public override int Read(Span<byte> buffer) => throw new NotSupportedException("read asynchronously");

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (!_sent)
            {
                if (buffer.IsEmpty)
                {
                    // A zero-byte read (a PipeReader's wait for data) returns once data is there, and takes none of it.
                    return 0;
                }

                _sent = true;
                first.CopyTo(buffer);
                return first.Length;
            }

            try
            {
                await Task.Delay(stall, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                CancelledByTheHost = true;
                throw;
            }

            EndedByTheClient = true;
            return 0;
        }

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }

    /// <summary>The connection's lifetime as the server sees it: whether the request closed it.</summary>
    private sealed class AbortRecordingLifetime : IHttpRequestLifetimeFeature
    {
        public CancellationToken RequestAborted { get; set; }

        public bool Aborted { get; private set; }

        public void Abort() => Aborted = true;
    }
}
