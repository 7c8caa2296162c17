using Azure.Core.Pipeline;
using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A fake vault, a real <see cref="SecretClient"/> talking to it over HTTPS, and the key source and signer on top,
/// with a hand-moved clock and captured logs. One per test.
/// </summary>
internal sealed class KeyVaultHarness : IAsyncDisposable
{
    public const string SecretName = "widget-signing-key";

    /// <summary>
    /// The functions in the WebJobs test host, in Azure (so the local key would be refused), signing with keys from
    /// <paramref name="server"/>: the app's own client options, only the transport and token differ.
    /// </summary>
    public static Task<FunctionsTestHost> StartHttpHostAsync(FakeKeyVaultServer server, params Type[] functionTypes)
    {
        ArgumentNullException.ThrowIfNull(server);
        var settings = new Dictionary<string, string?>
        {
            ["KeyVault:VaultUri"] = server.VaultUri.AbsoluteUri,
            ["KeyVault:SecretName"] = SecretName,
            ["KeyVault:MaxRetries"] = "1",
            ["KeyVault:RetryDelay"] = "00:00:00.02",
            ["KeyVault:NetworkTimeout"] = "00:00:02",
        };
        return FunctionsTestHost.StartAsync(
            settings,
            services =>
            {
                services.AddSingleton<IAzureEnvironment>(new FixedAzureEnvironment(true));
                services.AddSingleton(sp =>
                {
                    var options = sp.GetRequiredService<IOptions<KeyVaultOptions>>().Value;
                    var clientOptions = KeyVaultClientFactory.CreateClientOptions(options);
                    clientOptions.Transport = new HttpClientTransport(server.CreateHandler());
                    return KeyVaultClientFactory.CreateClient(options, new StaticTokenCredential(server.Token), clientOptions);
                });
            },
            functionTypes);
    }

    private readonly LoggerFactory _loggers;

    private KeyVaultHarness(FakeKeyVaultServer server, FakeTimeProvider time, KeyVaultOptions options)
    {
        Server = server;
        Time = time;
        Options = options;
        Credential = new StaticTokenCredential(server.Token);
        var clientOptions = KeyVaultClientFactory.CreateClientOptions(options);
        clientOptions.Transport = new HttpClientTransport(server.CreateHandler());
        Client = KeyVaultClientFactory.CreateClient(options, Credential, clientOptions);
        _loggers = new LoggerFactory([Logs]);
        Source = new KeyVaultSecretKeys(Client, options.SecretName!, options, time, _loggers.CreateLogger<KeyVaultReceiverKeySource>(), TestServices.Metrics());
        Streams = StreamPoolFactory.Create(new StreamPoolOptions(), Logs.CreateLogger("pool"));
        Receivers = new SingleReceiverKeySource(Source);
        Signer = new EnvelopeSigner(
            Streams,
            Receivers,
            new WidgetSigning.Envelopes.WidgetEnvelopeReader(),
            new WidgetSigning.SpareCores.CanonicalPass(TestServices.SpareCores()),
            Microsoft.Extensions.Options.Options.Create(new WidgetSigning.Envelopes.EnvelopeOptions()),
            time,
            _loggers.CreateLogger<EnvelopeSigner>());
        Verifier = new EnvelopeVerifier(Streams, Receivers, time, Microsoft.Extensions.Options.Options.Create(new WebhookOptions()));
    }

    public FakeKeyVaultServer Server { get; }

    public FakeTimeProvider Time { get; }

    public KeyVaultOptions Options { get; }

    public StaticTokenCredential Credential { get; }

    public SecretClient Client { get; }

    internal KeyVaultSecretKeys Source { get; }

    /// <summary><see cref="Source"/> as the default receiver's keys: what <see cref="Signer"/> and <see cref="Verifier"/> use.</summary>
    internal SingleReceiverKeySource Receivers { get; }

    public RecyclableMemoryStreamManager Streams { get; }

    public EnvelopeSigner Signer { get; }

    public EnvelopeVerifier Verifier { get; }

    public CapturedLogs Logs { get; } = new();

    /// <summary>The captured entries with event id <paramref name="eventId"/>.</summary>
    public IEnumerable<CapturedLog> LogsWithEvent(int eventId) => Logs.Entries.Where(e => e.EventId.Id == eventId);

    /// <summary>Every piece of text a log sink could receive, one string per entry (message and exception).</summary>
    public IEnumerable<string> AllLogText() => Logs.Entries.Select(e => e.Category + "\n" + e.Message + "\n" + e.Exception);

    /// <summary>Fast, bounded client retries so outage tests take seconds, not minutes (the timeout still allows a slow first TLS handshake).</summary>
    public static KeyVaultOptions TestOptions(Action<KeyVaultOptions>? configure = null)
    {
        var options = new KeyVaultOptions
        {
            SecretName = SecretName,
            RefreshInterval = TimeSpan.FromMinutes(5),
            AcceptedPreviousVersions = 2,
            MaxVersionAge = TimeSpan.FromDays(30),
            FailureRetryDelay = TimeSpan.FromSeconds(5),
            MaxRetries = 1,
            RetryDelay = TimeSpan.FromMilliseconds(20),
            MaxRetryDelay = TimeSpan.FromMilliseconds(100),
            NetworkTimeout = TimeSpan.FromSeconds(2),
        };
        configure?.Invoke(options);
        return options;
    }

    public static async Task<KeyVaultHarness> StartAsync(Action<KeyVaultOptions>? configure = null)
    {
        var time = new FakeTimeProvider(new DateTimeOffset(2026, 11, 21, 9, 0, 0, TimeSpan.Zero));
        var server = await FakeKeyVaultServer.StartAsync(time.GetUtcNow);
        var options = TestOptions(configure);
        options.VaultUri = server.VaultUri.AbsoluteUri;
        return new KeyVaultHarness(server, time, options);
    }

    /// <summary>Stores a fresh random 32-byte key as a new version.</summary>
    public string Rotate() => Server.SetSecret(SecretName, Convert.ToBase64String(System.Security.Cryptography.RandomNumberGenerator.GetBytes(32)));

    /// <summary>
    /// Moves the clock on, one due refresh at a time: each refresh the source's timer fires on the way runs, and finishes,
    /// with the clock at its own due time, as with a real clock. Moving straight to the end let a refresh fired on the way
    /// read the clock either at its due time or at the end, whichever its thread saw (a flaky test under load).
    /// </summary>
    public async Task AdvanceAsync(TimeSpan by)
    {
        // A refresh still in flight arms its next timer only as it ends (a caller may already have its keys): let it
        // finish first, so moving the clock fires that timer instead of racing it.
        await Source.CurrentRefresh.WaitAsync(TimeSpan.FromSeconds(30));
        var target = Time.GetUtcNow() + by;
        for (var step = 0; step < 10_000; step++)
        {
            var due = Source.NextAttemptAt;
            var now = Time.GetUtcNow();
            if (due > target || due <= now)
            {
                break;
            }

            Time.Advance(due - now);
            await Source.CurrentRefresh.WaitAsync(TimeSpan.FromSeconds(30));
        }

        Time.Advance(target - Time.GetUtcNow());
        await Source.CurrentRefresh.WaitAsync(TimeSpan.FromSeconds(30));
    }

    /// <summary>
    /// Moves the clock to the next due refresh (a random 80-100 % of the refresh interval after the last) and lets it
    /// finish: exactly one refresh, where advancing by the whole interval would also run the retries a failure schedules.
    /// </summary>
    public async Task AdvanceToNextRefreshAsync()
    {
        await Source.CurrentRefresh.WaitAsync(TimeSpan.FromSeconds(30));
        var due = Source.NextAttemptAt;
        var now = Time.GetUtcNow();
        if (due > now)
        {
            Time.Advance(due - now);
        }

        await Source.CurrentRefresh.WaitAsync(TimeSpan.FromSeconds(30));
    }

    public async ValueTask DisposeAsync()
    {
        Source.Dispose();
        _loggers.Dispose();
        await Server.DisposeAsync();
    }
}
