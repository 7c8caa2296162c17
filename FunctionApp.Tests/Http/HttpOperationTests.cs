using System.Diagnostics;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Telemetry;

namespace FunctionApp.Tests.Http;

/// <summary>
/// What every endpoint gets from the one runner around it, checked on the endpoints whose copies had drifted: a client
/// that goes away is logged as such, not as a rejection, and every call has its span.
/// </summary>
public sealed class HttpOperationTests
{
    [Fact]
    public async Task KeysHandleAsync_ClientGoneWhileKeysAreRead_LoggedAsClientClosedNotAsRejection()
    {
        // Arrange: the client goes while the receiver's keys are read (the source sees the request's token fire).
        using var aborted = new CancellationTokenSource();
        var logs = new CapturedLogs();
        using var loggers = new LoggerFactory([logs]);
        var handler = new KeysHandler(new AbortingKeySource(aborted), TestAuthorizers.Open(), loggers.CreateLogger<KeysHandler>());
        var exchange = HttpExchange.Post([], query: "?receiver=default");
        exchange.Context.RequestAborted = aborted.Token;

        // Act
        var result = await handler.HandleAsync(exchange.Request);

        // Assert
        var problem = Assert.IsType<ProblemResult>(result);
        Assert.Equal(ProblemTypes.ClientClosedRequest, problem.Type);
        Assert.Single(logs.Entries, e => e.EventId.Id == 4003);
        Assert.DoesNotContain(logs.Entries, e => e.EventId.Id == 4001);
    }

    [Theory]
    [InlineData("?receiver=default", null)]
    [InlineData("?receiver=nobody", "unknown-receiver")]
    public async Task KeysHandleAsync_AnyCall_HasItsSpanErrorWhenRefused(string query, string? refusal)
    {
        // Arrange
        var spans = new List<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = s => s.Name == WidgetSigningTelemetry.Name,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = a => { lock (spans) { spans.Add(a); } },
        };
        ActivitySource.AddActivityListener(listener);
        var handler = new KeysHandler(new FixedReceiverKeySource(new SigningKey("k1", new byte[32])), TestAuthorizers.Open(), Microsoft.Extensions.Logging.Abstractions.NullLogger<KeysHandler>.Instance);
        var exchange = HttpExchange.Post([], query: query);

        // Act
        using (var parent = new Activity("test-call").Start())
        {
            await handler.HandleAsync(exchange.Request);
            var traceId = parent.TraceId;

            // Assert
            Activity span;
            lock (spans)
            {
                span = Assert.Single(spans, s => s.TraceId == traceId && s.DisplayName == WidgetSigningTelemetry.KeysSpan);
            }

            Assert.Equal(refusal is null ? ActivityStatusCode.Unset : ActivityStatusCode.Error, span.Status);
            Assert.Equal(refusal, span.StatusDescription);
        }
    }

    // Cancels the request's token and throws as a cancelled read does, as the receiver's keys are asked for.
    private sealed class AbortingKeySource(CancellationTokenSource aborted) : IReceiverKeySource
    {
        public ReceiverId? DefaultReceiver => SigningTestExtensions.DefaultReceiver;

        public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw Abort();

        public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw Abort();

        public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) => throw Abort();

        public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) => throw Abort();

        private OperationCanceledException Abort()
        {
            aborted.Cancel();
            return new OperationCanceledException(aborted.Token);
        }
    }
}
