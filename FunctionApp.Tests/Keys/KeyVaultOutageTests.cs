using WidgetSigning.Envelopes;
using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Keys;

/// <summary>Key Vault failing, slow or throttling: before and after a first success, and recovering.</summary>
public sealed class KeyVaultOutageTests
{
    private static readonly byte[] Input = Vector.Load("one-widget").Input;

    public static TheoryData<FakeKeyVaultFault> Faults => new() { FakeKeyVaultFault.ServerError, FakeKeyVaultFault.Hang, FakeKeyVaultFault.Throttle };

    [Theory]
    [MemberData(nameof(Faults))]
    public async Task SignAsync_VaultFailsAfterFirstSuccess_KeepsSigningWithCachedKey(FakeKeyVaultFault fault)
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var first = harness.Rotate();
        Assert.Equal(first, await SignAsync(harness));
        harness.Server.Fault = fault;

        // Act
        await harness.AdvanceToNextRefreshAsync();
        var keyId = await SignAsync(harness);

        // Assert
        Assert.True(harness.Server.Faulted > 0, "the refresh should have met the fault");
        Assert.Equal(first, keyId);
        var warning = Assert.Single(harness.LogsWithEvent(3003));
        Assert.Contains(first, warning.Message, StringComparison.Ordinal);
        Assert.NotNull(warning.Exception);
    }

    [Fact]
    public async Task Refresh_VaultRecovers_PicksUpNewVersionWithoutRestart()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        await SignAsync(harness);
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        await harness.AdvanceToNextRefreshAsync();
        var second = harness.Rotate();

        // Act
        harness.Server.Fault = FakeKeyVaultFault.None;
        await harness.AdvanceAsync(harness.Options.FailureRetryDelay);

        // Assert
        Assert.Equal(second, await SignAsync(harness));
    }

    [Fact]
    public async Task Refresh_RepeatedFailures_BacksOffExponentiallyUpToTheRefreshInterval()
    {
        // Arrange: 5 s doubling, capped at 30 s.
        await using var harness = await KeyVaultHarness.StartAsync(o =>
        {
            o.RefreshInterval = TimeSpan.FromSeconds(30);
            o.MaxRetries = 0;
        });
        harness.Rotate();
        await SignAsync(harness);
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        var waits = new List<TimeSpan>();

        // Act
        await harness.AdvanceToNextRefreshAsync();
        for (var i = 0; i < 4; i++)
        {
            var wait = harness.Source.NextAttemptAt - harness.Time.GetUtcNow();
            waits.Add(wait);
            await harness.AdvanceAsync(wait);
        }

        // Assert
        Assert.Equal([TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(20), TimeSpan.FromSeconds(30)], waits);
        // Each failed refresh makes two calls: the versions list, then the revocation probe of the current version.
        Assert.Equal(10, harness.Server.Faulted);
    }

    [Fact]
    public async Task Refresh_Throttled_WaitsAtLeastRetryAfterBeforeCallingAgain()
    {
        // Arrange: no client-side retries, so the source sees the 429 and its Retry-After.
        await using var harness = await KeyVaultHarness.StartAsync(o => o.MaxRetries = 0);
        harness.Rotate();
        await SignAsync(harness);
        harness.Server.Fault = FakeKeyVaultFault.Throttle;
        harness.Server.ThrottleRetryAfterSeconds = 120;
        await harness.AdvanceToNextRefreshAsync();
        var requestsAfterThrottle = harness.Server.Requests;

        // Act
        await harness.AdvanceAsync(TimeSpan.FromSeconds(119));
        var requestsJustBefore = harness.Server.Requests;
        harness.Server.Fault = FakeKeyVaultFault.None;
        await harness.AdvanceAsync(TimeSpan.FromSeconds(1));

        // Assert
        Assert.Equal(requestsAfterThrottle, requestsJustBefore);
        Assert.True(harness.Server.Requests > requestsJustBefore, "the refresh should run once Retry-After has passed");
    }

    [Fact]
    public async Task Client_ThrottledWithRetryAfter_RetriesInsideTheSdkAndSucceeds()
    {
        // Arrange: the SDK's own retry honours Retry-After (1 s here) before the source ever sees a failure.
        await using var harness = await KeyVaultHarness.StartAsync(o => o.MaxRetries = 3);
        var version = harness.Rotate();
        harness.Server.Fault = FakeKeyVaultFault.Throttle;
        harness.Server.ThrottleRetryAfterSeconds = 1;
        var firstUse = harness.Source.GetCurrentKeyAsync(CancellationToken.None).AsTask();
        while (harness.Server.Faulted == 0 && !firstUse.IsCompleted)
        {
            await Task.Delay(10);
        }

        // Act
        harness.Server.Fault = FakeKeyVaultFault.None;
        var key = await firstUse;

        // Assert: the vault did answer 429 at least once, and the SDK's retry (not the source) got past it.
        Assert.True(harness.Server.Faulted > 0, "the vault never answered 429: the throttle was not exercised");
        Assert.Equal(version, key.KeyId);
        Assert.Empty(harness.LogsWithEvent(3004));
    }

    [Theory]
    [MemberData(nameof(Faults))]
    public async Task SignFunction_ColdStartWithVaultDown_Answers503WithRetryAfter(FakeKeyVaultFault fault)
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Rotate();
        harness.Server.Fault = fault;
        var function = CreateSignFunction(harness);

        // Act
        var exchange = HttpExchange.Post(Input);
        await exchange.ExecuteAsync(await function.RunAsync(exchange.Request));

        // Assert
        Assert.Equal(503, exchange.Status);
        Assert.Equal("5", exchange.ResponseHeaders.RetryAfter.ToString());
        Assert.Equal(ProblemTypes.KeyUnavailable, exchange.Json.Value<string>("type"));
        Assert.Single(harness.LogsWithEvent(3004));
    }

    [Fact]
    public async Task SignFunction_ColdStartThrottled_RetryAfterFollowsKeyVault()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync(o => o.MaxRetries = 0);
        harness.Rotate();
        harness.Server.Fault = FakeKeyVaultFault.Throttle;
        harness.Server.ThrottleRetryAfterSeconds = 120;
        var function = CreateSignFunction(harness);

        // Act
        var exchange = HttpExchange.Post(Input);
        await exchange.ExecuteAsync(await function.RunAsync(exchange.Request));

        // Assert
        Assert.Equal(503, exchange.Status);
        Assert.Equal("120", exchange.ResponseHeaders.RetryAfter.ToString());
    }

    [Fact]
    public async Task SignFunction_VaultDownThenRecovers_503WithoutExtraVaultCallsThen200()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        var function = CreateSignFunction(harness);
        var first = HttpExchange.Post(Input);
        await first.ExecuteAsync(await function.RunAsync(first.Request));
        var requestsAfterFirst = harness.Server.Requests;

        // Act: more requests during the backoff, then Key Vault comes back and the timer retries.
        var statuses = new List<int>();
        for (var i = 0; i < 10; i++)
        {
            var during = HttpExchange.Post(Input);
            await during.ExecuteAsync(await function.RunAsync(during.Request));
            statuses.Add(during.Status);
        }

        var requestsDuringBackoff = harness.Server.Requests - requestsAfterFirst;
        harness.Server.Fault = FakeKeyVaultFault.None;
        await harness.AdvanceAsync(harness.Options.FailureRetryDelay);
        var after = HttpExchange.Post(Input);
        await after.ExecuteAsync(await function.RunAsync(after.Request));

        // Assert
        Assert.Equal(503, first.Status);
        Assert.All(statuses, s => Assert.Equal(503, s));
        Assert.Equal(0, requestsDuringBackoff);
        Assert.Equal(200, after.Status);
        Assert.Equal(version, after.Json.Value<string>("keyId"));
    }

    [Fact]
    public async Task SignAsync_ColdStartWithVaultDown_ThrowsUnavailableSoQueueMessageIsRetried()
    {
        // Arrange: the queue adapter lets SigningKeyUnavailableException propagate, so the runtime retries the message.
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Rotate();
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        var envelope = Read();

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None));
        harness.Server.Fault = FakeKeyVaultFault.None;
        await harness.AdvanceAsync(error.Problem.RetryAfter!.Value);
        using var retried = await harness.Signer.SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Equal(TimeSpan.FromSeconds(5), error.Problem.RetryAfter);
        Assert.Equal(version, retried.KeyId);
    }

    private static SignFunction CreateSignFunction(KeyVaultHarness harness) => new(new SignHandler(
        new HttpEnvelopeReader(new WidgetEnvelopeReader(), harness.Streams, Microsoft.Extensions.Options.Options.Create(new HttpOptions()), TestServices.NoBudget),
        harness.Signer,
        Microsoft.Extensions.Options.Options.Create(new ReceiverOptions()),
        TestAuthorizers.Open(), NullLogger<SignHandler>.Instance));

    private static WidgetEnvelope Read()
    {
        using var stream = new MemoryStream(Input, writable: false);
        return new WidgetEnvelopeReader().Read(stream);
    }

    private static async Task<string> SignAsync(KeyVaultHarness harness)
    {
        using var signed = await harness.Signer.SignAsync(Read(), SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);
        return signed.KeyId;
    }
}
