using System.Security.Cryptography;
using Azure.Core.Pipeline;
using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Keys;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A fake vault holding receivers' secrets, a real <see cref="SecretClient"/> talking to it over HTTPS, and the
/// <see cref="KeyVaultReceiverKeySource"/> on top, with a hand-moved clock and (unless <c>captureLogs</c> is false) captured logs.
/// </summary>
internal sealed class ReceiverVaultHarness : IAsyncDisposable
{
    private readonly LoggerFactory? _loggers;

    private ReceiverVaultHarness(FakeKeyVaultServer server, FakeTimeProvider time, KeyVaultOptions options, ReceiverOptions receivers, bool captureLogs)
    {
        Server = server;
        Time = time;
        Options = options;
        Receivers = receivers;
        var clientOptions = KeyVaultClientFactory.CreateClientOptions(options);
        clientOptions.Transport = new HttpClientTransport(server.CreateHandler());
        Client = KeyVaultClientFactory.CreateClient(options, new StaticTokenCredential(server.Token), clientOptions);
        ILogger<KeyVaultReceiverKeySource> logger = NullLogger<KeyVaultReceiverKeySource>.Instance;
        if (captureLogs)
        {
            _loggers = new LoggerFactory([Logs]);
            logger = _loggers.CreateLogger<KeyVaultReceiverKeySource>();
        }

        Source = new KeyVaultReceiverKeySource(
            Client, Microsoft.Extensions.Options.Options.Create(options), Microsoft.Extensions.Options.Options.Create(receivers), time,
            logger, TestServices.Metrics());
    }

    public FakeKeyVaultServer Server { get; }

    public FakeTimeProvider Time { get; }

    public KeyVaultOptions Options { get; }

    public ReceiverOptions Receivers { get; }

    public SecretClient Client { get; }

    public KeyVaultReceiverKeySource Source { get; }

    public CapturedLogs Logs { get; } = new();

    public static async Task<ReceiverVaultHarness> StartAsync(
        Action<ReceiverOptions>? receivers = null, Action<KeyVaultOptions>? vault = null, bool captureLogs = true)
    {
        var time = new FakeTimeProvider(new DateTimeOffset(2026, 11, 21, 9, 0, 0, TimeSpan.Zero));
        var server = await FakeKeyVaultServer.StartAsync(time.GetUtcNow);
        var options = KeyVaultHarness.TestOptions(vault);
        options.VaultUri = server.VaultUri.AbsoluteUri;
        var receiverOptions = new ReceiverOptions();
        receivers?.Invoke(receiverOptions);
        return new ReceiverVaultHarness(server, time, options, receiverOptions, captureLogs);
    }

    /// <summary>How many of <paramref name="receivers"/> have keys held by the source, as the key listing sees them.</summary>
    public int LoadedCount(params IEnumerable<string> receivers) =>
        receivers.Count(r => Source.DescribeLoadedKeys(ReceiverId.Parse(r)) is not null);

    /// <summary>The captured entries with event id <paramref name="eventId"/>.</summary>
    public IEnumerable<CapturedLog> LogsWithEvent(int eventId) => Logs.Entries.Where(e => e.EventId.Id == eventId);

    /// <summary>Stores a fresh random 32-byte key as a new version of <paramref name="receiver"/>'s secret; its version id.</summary>
    public string SetKey(string receiver, DateTimeOffset? notBefore = null, DateTimeOffset? expiresOn = null) =>
        Server.SetSecret(Options.ReceiverSecretPrefix + receiver, Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)), expiresOn: expiresOn, notBefore: notBefore);

    /// <summary>Stores a key for the default receiver (<c>KeyVault:SecretName</c>); its version id.</summary>
    public string SetDefaultKey() =>
        Server.SetSecret(Options.SecretName!, Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)));

    /// <summary>
    /// Moves the clock on in steps of <paramref name="step"/>, letting every refresh the timers start finish before the next
    /// step, so each refresh runs with the clock at its step (at most one step after it fell due).
    /// </summary>
    public async Task AdvanceAsync(TimeSpan by, TimeSpan step, Func<Task>? eachStep = null)
    {
        await Source.RefreshesSettledAsync().WaitAsync(TimeSpan.FromSeconds(60));
        var target = Time.GetUtcNow() + by;
        while (Time.GetUtcNow() < target)
        {
            var left = target - Time.GetUtcNow();
            Time.Advance(left < step ? left : step);
            await Source.RefreshesSettledAsync().WaitAsync(TimeSpan.FromSeconds(60));
            if (eachStep is not null)
            {
                await eachStep();
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        Source.Dispose();
        _loggers?.Dispose();
        await Server.DisposeAsync();
    }
}
