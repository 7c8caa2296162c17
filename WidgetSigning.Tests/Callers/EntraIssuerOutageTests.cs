using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using Microsoft.IdentityModel.Tokens;
using WidgetSigning.Callers;
using WidgetSigning.Callers.Entra;
using WidgetSigning.Http;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Callers;

/// <summary>
/// <see cref="EntraTokenValidator"/> when its issuer cannot be reached: a closed port, a listener that never answers, an
/// issuer answering 503, and its return. Every such call is a a <see cref="ProblemException"/> of <see cref="Problems.Types.AuthUnavailable"/> (503
/// <c>auth-unavailable</c> with <c>Retry-After</c>), never a rejected token; no call waits more than
/// <see cref="EntraTokenValidator.MaxWait"/>; no more than one fetch per <see cref="EntraTokenValidator.FailureWindow"/>.
/// </summary>
public sealed class EntraIssuerOutageTests : IAsyncLifetime
{
    private const int IssuerUnreachable = 7007;
    private const int IssuerRecovered = 7008;

    private readonly CapturedLogs _logs = new();
    private TestIssuer _issuer = null!;

    public async Task InitializeAsync() => _issuer = await TestIssuer.StartAsync();

    public async Task DisposeAsync() => await _issuer.DisposeAsync();

    [Fact]
    public async Task ValidateAsync_IssuerUnreachableOnColdStart_Is503NotAnInvalidToken()
    {
        // Arrange: nothing listens at the authority (a port taken from the OS and released); a token of the right shape.
        var authority = $"http://127.0.0.1:{Loopback.FreePort()}/{TestIssuer.TenantId}/v2.0";
        using var validator = Validator(authority);
        var token = _issuer.Mint(new TokenSpec { Claims = { ["iss"] = authority } });

        // Act
        var outcomes = new List<Exception>();
        for (var i = 0; i < 20; i++)
        {
            outcomes.Add(await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(token, CancellationToken.None).AsTask()));
        }

        // Assert: 503 with the failure window as Retry-After, and one Warning naming the authority and the failure.
        Assert.All(outcomes, e => Assert.Equal(EntraTokenValidator.FailureWindow, ((ProblemException)e).Problem.RetryAfter));
        var warning = Assert.Single(_logs.Entries, e => e.EventId.Id == IssuerUnreachable);
        Assert.Equal(LogLevel.Warning, warning.Level);
        Assert.Contains(authority, warning.Message, StringComparison.Ordinal);
        Assert.Contains("could not be read", warning.Message, StringComparison.Ordinal);
        AssertNoTokenLogged(token);
    }

    [Fact]
    public async Task ValidateAsync_IssuerUnreachable_IsAnAuthUnavailableProblemWithRetryAfter()
    {
        // Arrange: the exception the real validator throws for a closed port.
        var authority = $"http://127.0.0.1:{Loopback.FreePort()}/{TestIssuer.TenantId}/v2.0";
        using var validator = Validator(authority);
        var unavailable = await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(_issuer.Mint(), CancellationToken.None).AsTask());
        var context = new DefaultHttpContext();
        context.Response.Body = new MemoryStream();

        // Act: mapped and written as every HTTP function does.
        Assert.True(ProblemMapper.TryMap(unavailable, CancellationToken.None, out var problem));
        await problem.ExecuteResultAsync(new ActionContext { HttpContext = context });

        // Assert
        Assert.Equal(StatusCodes.Status503ServiceUnavailable, context.Response.StatusCode);
        Assert.Equal(ProblemTypes.AuthUnavailable, problem.Type);
        Assert.Equal(((int)EntraTokenValidator.FailureWindow.TotalSeconds).ToString(System.Globalization.CultureInfo.InvariantCulture), context.Response.Headers.RetryAfter.ToString());
        Assert.Contains(ProblemTypes.AuthUnavailable, System.Text.Encoding.UTF8.GetString(((MemoryStream)context.Response.Body).ToArray()), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_IssuerAcceptsAndNeverAnswers_TwentyCallsAnswered503AtMaxWaitOverOneConnection()
    {
        // Arrange: a listener that accepts every connection and never says a word; the validator on a clock the test moves.
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var accepted = new ConcurrentQueue<Socket>();
        using var stop = new CancellationTokenSource();
        var accepting = Task.Run(async () =>
        {
            try
            {
                while (true)
                {
                    accepted.Enqueue(await listener.AcceptSocketAsync(stop.Token));
                }
            }
            catch (OperationCanceledException)
            {
            }
        });
        var authority = $"http://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}/{TestIssuer.TenantId}/v2.0";
        var clock = new FakeTimeProvider(DateTimeOffset.UtcNow);
        var validator = Validator(authority, clock);
        var token = _issuer.Mint();

        try
        {
            // Act: 20 calls waiting at once; the clock moved to just short of MaxWait, then to it; one call after them.
            var calls = Enumerable.Range(0, 20).Select(_ => validator.ValidateAsync(token, CancellationToken.None).AsTask()).ToList();
            await UntilAsync(() => !accepted.IsEmpty);
            clock.Advance(EntraTokenValidator.MaxWait - TimeSpan.FromTicks(1));
            await Task.Delay(100);
            var answeredEarly = calls.Count(c => c.IsCompleted);
            clock.Advance(TimeSpan.FromTicks(1));
            var all = Task.WhenAll(calls.Select(c => Record.ExceptionAsync(() => c)));
            Assert.True(await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(30))) == all, "the calls were still unanswered 30 s after MaxWait");
            var outcomes = await all;
            var after = await Record.ExceptionAsync(() => validator.ValidateAsync(token, CancellationToken.None).AsTask());

            // Assert: none answered before MaxWait; each 503 at it, while the fetch (one connection for all) is still
            // open: the wait ended the calls, not the fetch's own 10 s timeout.
            Assert.Equal(0, answeredEarly);
            Assert.All(outcomes.Append(after), e => ProblemAssert.Is(Problems.Types.AuthUnavailable, e));
            var connection = Assert.Single(accepted);
            Assert.False(ClosedByPeer(connection), "the issuer's connection was closed: the calls waited for the fetch's own timeout");
            Assert.Single(_logs.Entries, e => e.EventId.Id == IssuerUnreachable);
        }
        finally
        {
            validator.Dispose();
            await stop.CancelAsync();
            await accepting;
            foreach (var socket in accepted)
            {
                socket.Dispose();
            }
        }
    }

    [Fact]
    public async Task ValidateAsync_IssuerDown_FetchesOncePerFailureWindow()
    {
        // Arrange: the issuer answers 503 to everything; the validator on a clock the test moves.
        _issuer.Down = true;
        var clock = new FakeTimeProvider(DateTimeOffset.UtcNow);
        using var validator = Validator(_issuer.Authority, clock);
        var token = _issuer.Mint();

        // Act: 41 calls within one failure window, then one after it.
        for (var i = 0; i < 41; i++)
        {
            await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(token, CancellationToken.None).AsTask());
            clock.Advance(TimeSpan.FromMilliseconds(100));
        }

        var duringWindow = _issuer.MetadataFetches;
        clock.Advance(EntraTokenValidator.FailureWindow);
        await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(token, CancellationToken.None).AsTask());

        // Assert: one fetch for the 41 calls, one more once the window has passed; one Warning for the outage.
        Assert.Equal(1, duringWindow);
        Assert.Equal(2, _issuer.MetadataFetches);
        Assert.Single(_logs.Entries, e => e.EventId.Id == IssuerUnreachable);
    }

    [Fact]
    public async Task ValidateAsync_IssuerBackAfterAnOutage_ValidatesAfterTheWindowAndLogsRecoveryOnce()
    {
        // Arrange: a cold start while the issuer is down, then the issuer comes back.
        _issuer.Down = true;
        var clock = new FakeTimeProvider(DateTimeOffset.UtcNow);
        using var validator = Validator(_issuer.Authority, clock);
        await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(_issuer.Mint(), CancellationToken.None).AsTask());
        _issuer.Down = false;

        // Act: a call within the failure window, then calls after it.
        await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(_issuer.Mint(), CancellationToken.None).AsTask());
        clock.Advance(EntraTokenValidator.FailureWindow);
        var caller = await validator.ValidateAsync(_issuer.Mint(), CancellationToken.None);
        clock.Advance(TimeSpan.FromMinutes(1));
        await validator.ValidateAsync(_issuer.Mint(null, AppRoles.Verify), CancellationToken.None);

        // Assert: no fetch within the window; one after it; one recovery line.
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
        Assert.Equal(2, _issuer.MetadataFetches);
        var recovered = Assert.Single(_logs.Entries, e => e.EventId.Id == IssuerRecovered);
        Assert.Equal(LogLevel.Information, recovered.Level);
        Assert.Contains(_issuer.Authority, recovered.Message, StringComparison.Ordinal);
        Assert.Single(_logs.Entries, e => e.EventId.Id == IssuerUnreachable);
    }

    [Fact]
    public async Task ValidateAsync_UnknownKidWhileTheIssuerIsDown_Is503AndKnownKeysStillValidate()
    {
        // Arrange: keys loaded, then the issuer goes down and the refresh interval passes.
        var clock = new FakeTimeProvider(DateTimeOffset.UtcNow);
        using var validator = Validator(_issuer.Authority, clock);
        await validator.ValidateAsync(_issuer.Mint(), CancellationToken.None);
        _issuer.Down = true;
        clock.Advance(EntraTokenValidator.RefreshInterval);
        var unknownKid = _issuer.Mint(new TokenSpec { Signing = new SigningCredentials(TestIssuer.NewKey(), SecurityAlgorithms.RsaSha256) });

        // Act
        var unavailable = await ProblemAssert.ThrowsAsync(Problems.Types.AuthUnavailable, () => validator.ValidateAsync(unknownKid, CancellationToken.None).AsTask());
        var caller = await validator.ValidateAsync(_issuer.Mint(null, AppRoles.Verify), CancellationToken.None);

        // Assert: the key may be a new one of the issuer's, so not a 401; a token of a key held is not affected.
        Assert.Equal(EntraTokenValidator.FailureWindow, unavailable.Problem.RetryAfter);
        Assert.Equal([AppRoles.Verify], caller.Roles);
        Assert.Equal(2, _issuer.MetadataFetches);
    }

    [Fact]
    public async Task ValidateAsync_KeysTwelveHoursOld_AreFetchedAgainWithoutHoldingTheCall()
    {
        // Arrange: keys loaded; the issuer then answers only when the test lets it; twelve hours pass.
        var clock = new FakeTimeProvider(DateTimeOffset.UtcNow);
        using var validator = Validator(_issuer.Authority, clock);
        await validator.ValidateAsync(_issuer.Mint(), CancellationToken.None);
        var slow = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _issuer.Stall = slow;
        clock.Advance(EntraTokenValidator.AutomaticRefreshInterval);

        // Act
        var caller = await validator.ValidateAsync(_issuer.Mint(null, AppRoles.Verify), CancellationToken.None);
        await UntilAsync(() => _issuer.Stalled > 0);
        var refreshWaitingAfterTheCall = _issuer.Stalled;
        slow.SetResult();
        await UntilAsync(() => _issuer.JwksFetches >= 2);

        // Assert: answered with the keys held while the refresh waited on the issuer; the refresh, let through only
        // after the call returned, then completed: so the call never waited for it (a call that had waited would have
        // outlasted the fetch's own timeout, and that fetch would have failed).
        Assert.Equal([AppRoles.Verify], caller.Roles);
        Assert.Equal(1, refreshWaitingAfterTheCall);
        Assert.Equal(2, _issuer.MetadataFetches);
        Assert.Equal(2, _issuer.JwksFetches);
    }

    [Fact]
    public async Task StartAsync_HostWithEntraValidation_FetchesTheIssuersKeysBeforeTheFirstCall()
    {
        // Arrange: the app's registration, as the isolated app's Program.cs makes it.
        var services = new ServiceCollection()
            .AddLogging()
            .AddSingleton(Options.Create(new AuthOptions
            {
                Authority = _issuer.Authority, TenantId = TestIssuer.TenantId, Audience = TestIssuer.Audience,
            }))
            .AddEntraTokenValidation();
        await using var provider = services.BuildServiceProvider();
        var hosted = provider.GetServices<IHostedService>();

        // Act: start the host's services, and make no call.
        foreach (var service in hosted)
        {
            await service.StartAsync(CancellationToken.None);
        }

        var waited = Stopwatch.StartNew();
        while (_issuer.MetadataFetches == 0 && waited.Elapsed < TimeSpan.FromSeconds(30))
        {
            await Task.Delay(20);
        }

        // Assert: fetched once with no call; the first call then spends no fetch of its own.
        Assert.Equal(1, _issuer.MetadataFetches);
        var validator = provider.GetRequiredService<ITokenValidator>();
        await validator.ValidateAsync(_issuer.Mint(), CancellationToken.None);
        Assert.Equal(1, _issuer.MetadataFetches);
    }

    // Real time only to let other threads run; what is asserted is what happened, never how long it took.
    private static async Task UntilAsync(Func<bool> condition)
    {
        var waited = Stopwatch.StartNew();
        while (!condition() && waited.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(20);
        }
    }

    // Whether the other end closed the connection: readable with nothing left to read once the request is drained.
    private static bool ClosedByPeer(Socket socket)
    {
        try
        {
            var buffer = new byte[4096];
            while (socket.Available > 0)
            {
                _ = socket.Receive(buffer);
            }

            return socket.Poll(0, SelectMode.SelectRead) && socket.Available == 0;
        }
        catch (SocketException)
        {
            return true;
        }
    }

    private EntraTokenValidator Validator(string authority, TimeProvider? time = null) =>
        EntraTokenValidatorTests.Validator(authority, new LoggerFactory([_logs]).CreateLogger<EntraTokenValidator>(), time);

    private void AssertNoTokenLogged(string token)
    {
        foreach (var entry in _logs.Entries)
        {
            foreach (var part in token.Split('.').Where(p => p.Length >= 8))
            {
                Assert.DoesNotContain(part, entry.Message + entry.Exception, StringComparison.Ordinal);
            }
        }
    }
}
