using System.Diagnostics;
using Azure.Core.Pipeline;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Keys;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// The queue function in the real WebJobs SDK host against Azurite, with the app's own Key Vault key source and
/// SecretClient talking over HTTPS to the fake vault, which is down at cold start. Only the client's transport and
/// token, the clock and the Azure environment are test seams; everything else is the app's registration.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class SignQueueKeyVaultOutageTests
{
    private const int AttemptFailedEvent = 5011;
    private const int LoadFailedNoKeyEvent = 3004;
    private const int MaxRetries = 1;

    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan FailureRetryDelay = TimeSpan.FromSeconds(5);
    private static readonly Vector OneWidget = Vector.Load("one-widget");

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public SignQueueKeyVaultOutageTests(AzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    public static TheoryData<FakeKeyVaultFault> ColdStartFaults => new() { FakeKeyVaultFault.ServerError, FakeKeyVaultFault.Hang };

    [Theory]
    [MemberData(nameof(ColdStartFaults))]
    public async Task RunAsync_ColdStartWithVaultDownThenRecovery_RetriesAndForwardsOneResultWithoutRestart(FakeKeyVaultFault fault)
    {
        // Arrange
        var time = new FakeTimeProvider(new DateTimeOffset(2026, 11, 21, 9, 0, 0, TimeSpan.Zero));
        await using var vault = await FakeKeyVaultServer.StartAsync(time.GetUtcNow);
        var version = vault.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        vault.SetSecret("audit-signing-key", TestAudit.LocalSigningKey);
        vault.Fault = fault;
        var logs = new CapturedLogs();
        await using var host = await StartHostAsync(vault, time, logs, visibilityTimeout: "00:00:01", maxDequeueCount: 20);
        Assert.IsType<KeyVaultReceiverKeySource>(host.Services.GetRequiredService<IReceiverKeySource>());

        // Act: the message fails while no key was ever loaded; wait for a second failed attempt (a real retry).
        var id = await host.EnqueueAsync(OneWidget.Input);
        Assert.True(await WaitForAsync(() => FailedAttempts(logs, id) >= 2), "the message should have been retried while the vault was down");
        var faultedDuringOutage = vault.Faulted;

        // The vault comes back; the source's own backoff timer (manual clock) reloads the key, in the same host.
        vault.Fault = FakeKeyVaultFault.None;
        time.Advance(FailureRetryDelay);
        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");

        // Assert
        var output = Assert.Single(outputs);
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(OneWidget.SignatureHex, output.Value<string>("signature"));
        Assert.Equal(version, output.Value<string>("keyId"));

        // Every earlier run failed and the message was put back; the one after recovery succeeded. A run either failed
        // for want of a key (5011), or, while the vault hangs on a busy machine, lost its 1 s lease as it waited: it is
        // cancelled and the queue hands the message out again. Each such run is one dequeue, and the host logs it as failed.
        var retries = FailedAttempts(logs, id);
        var failedRuns = FailedRuns(logs);
        Assert.True(retries >= 2, $"expected at least 2 failed attempts, saw {retries}");
        Assert.True(failedRuns >= retries, $"the host logged {failedRuns} failed runs for {retries} failed attempts");
        Assert.Equal(failedRuns + 1, output.Value<int>("dequeueCount"));

        // Only the cold-start load met the fault: retried messages during the backoff never called the vault.
        Assert.Equal(1 + MaxRetries, faultedDuringOutage);
        Assert.Equal(faultedDuringOutage, vault.Faulted);
        Assert.Single(logs.Entries, e => e.EventId.Id == LoadFailedNoKeyEvent);

        // Exactly one result (the input is gone, so no duplicate can still come), nothing rejected or poisoned.
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    [Fact]
    public async Task RunAsync_VaultDownThroughout_MovesTheMessageToPoisonNotRejected()
    {
        // Arrange
        var time = new FakeTimeProvider(new DateTimeOffset(2026, 11, 21, 9, 0, 0, TimeSpan.Zero));
        await using var vault = await FakeKeyVaultServer.StartAsync(time.GetUtcNow);
        vault.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);
        vault.SetSecret("audit-signing-key", TestAudit.LocalSigningKey);
        vault.Fault = FakeKeyVaultFault.ServerError;
        var logs = new CapturedLogs();
        await using var host = await StartHostAsync(vault, time, logs, visibilityTimeout: "00:00:01", maxDequeueCount: 3);

        // Act
        var id = await host.EnqueueAsync(OneWidget.Input);
        var poisoned = await QueueFunctionHost.ReceiveRawAsync(host.Poison, Patience);

        // Assert: the producer's message, untouched, after maxDequeueCount failed attempts. On a busy machine a run may
        // outlive its 1 s lease (event 5105): the queue then hands the message out again while that run fails, which is
        // one more failed attempt than deliveries counted, and correct.
        Assert.NotNull(poisoned);
        Assert.Equal(OneWidget.Input, Convert.FromBase64String(poisoned));
        Assert.Equal(3 + LeasesLost(logs, id), FailedAttempts(logs, id));
        Assert.Equal(1 + MaxRetries, vault.Faulted);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
    }

    private Task<QueueFunctionHost> StartHostAsync(FakeKeyVaultServer vault, FakeTimeProvider time, CapturedLogs logs, string visibilityTimeout, int maxDequeueCount)
    {
        var settings = new Dictionary<string, string?>
        {
            ["KeyVault:VaultUri"] = vault.VaultUri.AbsoluteUri,
            ["KeyVault:SecretName"] = KeyVaultHarness.SecretName,
            ["KeyVault:FailureRetryDelay"] = FailureRetryDelay.ToString("c"),
            ["KeyVault:MaxRetries"] = MaxRetries.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["KeyVault:RetryDelay"] = "00:00:00.020",
            ["KeyVault:MaxRetryDelay"] = "00:00:00.100",
            ["KeyVault:NetworkTimeout"] = "00:00:02",

            // No local key to fall back on: a signature can only come from the vault.
            ["Signing:LocalKey"] = null,
            ["Audit:LocalSigningKey"] = null,
        };
        var queues = new Dictionary<string, string?>
        {
            ["visibilityTimeout"] = visibilityTimeout,
            ["maxDequeueCount"] = maxDequeueCount.ToString(System.Globalization.CultureInfo.InvariantCulture),
        };

        // Registered after Startup's TryAdds, so these win; the SecretClient is built by the app's factory from the bound options.
        return QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            queues,
            services =>
            {
                services.AddSingleton<IAzureEnvironment>(new FixedAzureEnvironment(true));
                services.AddSingleton<TimeProvider>(time);
                services.AddSingleton<ILoggerProvider>(logs);
                services.AddSingleton(sp =>
                {
                    var options = sp.GetRequiredService<IOptions<KeyVaultOptions>>().Value;
                    var clientOptions = KeyVaultClientFactory.CreateClientOptions(options);
                    clientOptions.Transport = new HttpClientTransport(vault.CreateHandler());
                    return KeyVaultClientFactory.CreateClient(options, new StaticTokenCredential(vault.Token), clientOptions);
                });
            },
            settings);
    }

    /// <summary>How many attempts at message <paramref name="id"/> failed (the function logs each before the extension retries or poisons it).</summary>
    private static int LeasesLost(CapturedLogs logs, string id) =>
        logs.Entries.Count(e => e.EventId.Id == 5105 && e.Message.Contains(id, StringComparison.Ordinal));

    private static int FailedAttempts(CapturedLogs logs, string id) =>
        logs.Entries.Count(e => e.EventId.Id == AttemptFailedEvent && e.Message.Contains(id, StringComparison.Ordinal));

    /// <summary>How many runs the host logged as failed (one message per host here), whatever ended them.</summary>
    private static int FailedRuns(CapturedLogs logs) =>
        logs.Entries.Count(e => e.Category == "Function.SignQueue" && e.Message.StartsWith("Executed 'SignQueue' (Failed", StringComparison.Ordinal));

    private static async Task<bool> WaitForAsync(Func<bool> condition)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > Patience)
            {
                return false;
            }

            await Task.Delay(50);
        }

        return true;
    }
}
