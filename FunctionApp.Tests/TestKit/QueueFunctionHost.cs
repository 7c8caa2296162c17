using System.Diagnostics;
using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using FunctionApp.Functions;
using FunctionApp.Functions.QueueTrigger;
using WidgetSigning.Storage;
using WidgetSigning.Queues;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using LocalHost;
using Newtonsoft.Json.Linq;
using LogLevel = Microsoft.Extensions.Logging.LogLevel;
using Xunit.Abstractions;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// The queue function running in the real WebJobs SDK host against Azurite, wired the way the in-process Functions
/// host wires it: every startup the build's <c>bin/extensions.json</c> lists (our trigger's
/// <see cref="WidgetQueueWebJobsStartup"/> and <c>FunctionApp.Startup</c>), run through <c>UseWebJobsStartup</c> with a
/// builder context, the shipped host.json under <c>AzureFunctionsJobHost</c>, and function discovery limited to
/// <see cref="SignQueueFunction"/>, built by the local host's own <c>FunctionsHostFactory</c>. Each host gets its own queue and container names, so tests sharing one Azurite do
/// not see each other's messages.
/// </summary>
public sealed class QueueFunctionHost : QueueTestHost, IAsyncDisposable
{
    /// <summary>The longest wait between polls of an empty queue in tests (host.json ships 5 s).</summary>
    public static readonly TimeSpan TestPollingInterval = TimeSpan.FromMilliseconds(200);

    private readonly IHost _host;
    private bool _stopped;

    private QueueFunctionHost(IHost host, QueueServiceClient queues, BlobServiceClient blobs, string prefix)
        : base(new QueueTestResources(queues, blobs, prefix))
    {
        _host = host;
        QueueService = queues;
        BlobService = blobs;
        Prefix = prefix;
    }

    public string Prefix { get; }

    public QueueServiceClient QueueService { get; }

    public BlobServiceClient BlobService { get; }

    public IServiceProvider Services => _host.Services;

    /// <summary>
    /// Starts a host. <paramref name="hostJson"/> overrides host.json <c>extensions.queues</c> keys (camelCase);
    /// <paramref name="appSettings"/> adds or overrides app settings (a null value unsets one); <paramref name="storage"/>
    /// replaces the app's storage client factory (and the test's own), e.g. with a credential and a transport.
    /// </summary>
    public static async Task<QueueFunctionHost> StartAsync(
        AzuriteFixture azurite,
        ITestOutputHelper output,
        IDictionary<string, string?>? hostJson = null,
        Action<IServiceCollection>? overrideServices = null,
        IDictionary<string, string?>? appSettings = null,
        string? prefix = null,
        Func<IConfiguration, WidgetStorageClientFactory>? storage = null)
    {
        ArgumentNullException.ThrowIfNull(azurite);
        prefix ??= "t" + Guid.NewGuid().ToString("N")[..12];
        var settings = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase)
        {
            // As the Functions host does: host.json lives under AzureFunctionsJobHost, app settings at the root.
            ["AzureWebJobsConfigurationSection"] = "AzureFunctionsJobHost",
            ["AzureWebJobsStorage"] = azurite.ConnectionString,
            [QueueOptions.ConnectionSetting] = azurite.ConnectionString,
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["Audit:LocalSigningKey"] = TestAudit.LocalSigningKey,
            ["Audit:Container"] = prefix + "-audit",
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
            ["Auth:TenantId"] = "7a1e0000-0000-4000-8000-0000000000f1",
            ["Auth:Audience"] = "7a1e0000-0000-4000-8000-0000000000f2",
        };
        foreach (var (key, value) in QueueTestResources.Settings(prefix))
        {
            settings[key] = value;
        }

        foreach (var (key, value) in ShippedHostJson())
        {
            settings.TryAdd("AzureFunctionsJobHost:" + key, value);
        }

        foreach (var (key, value) in hostJson ?? new Dictionary<string, string?>())
        {
            settings["AzureFunctionsJobHost:extensions:queues:" + key] = value;
        }

        foreach (var (key, value) in appSettings ?? new Dictionary<string, string?>())
        {
            settings[key] = value;
        }

        var loggerFactory = LoggerFactory.Create(b => b.AddProvider(new TestOutputLoggerProvider(output, LogLevel.Warning)));

        // As the host does: every startup extensions.json lists, nothing added by hand; the same builder as the local host's.
        var setup = new FunctionsHostSetup
        {
            ApplicationRootPath = AppContext.BaseDirectory,
            Settings = settings,
            StartupTypes = AppBuildOutput.StartupTypes(),
            FunctionTypes = [typeof(SignQueueFunction)],
        };
        var host = FunctionsHostFactory.Create(setup, loggerFactory)
            .ConfigureLogging(b => b.SetMinimumLevel(LogLevel.Warning).AddProvider(new TestOutputLoggerProvider(output, LogLevel.Warning)))
            .ConfigureServices(services =>
            {
                // Tests poll fast; everything else comes from the shipped host.json.
                services.PostConfigure<WidgetQueueOptions>(options => options.MaxPollingInterval = TestPollingInterval);
                if (storage is not null)
                {
                    services.AddSingleton(provider => storage(provider.GetRequiredService<IConfiguration>()));
                }

                overrideServices?.Invoke(services);
            })
            .Build();

        var testConfiguration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var factory = storage?.Invoke(testConfiguration) ?? new WidgetStorageClientFactory(testConfiguration);
        var wrapper = new QueueFunctionHost(
            host, factory.CreateQueueServiceClient(QueueOptions.ConnectionSetting), factory.CreateBlobServiceClient(QueueOptions.ConnectionSetting), prefix);
        await wrapper.Resources.CreateAsync();
        try
        {
            await host.StartAsync();
        }
        catch
        {
            host.Dispose();
            throw;
        }

        return wrapper;
    }

    /// <summary>Enqueues <paramref name="json"/> base64-encoded (what producers send); returns the message id.</summary>
    public Task<string> EnqueueAsync(byte[] json) => EnqueueRawAsync(Convert.ToBase64String(json));

    /// <summary>Enqueues <paramref name="text"/> as is, not base64-encoded.</summary>
    public async Task<string> EnqueueRawAsync(string text)
    {
        var receipt = await Input.SendMessageAsync(text);
        return receipt.Value.MessageId;
    }

    /// <summary>Uploads <paramref name="envelope"/> to the claims container and enqueues a claim check for it.</summary>
    public async Task<string> EnqueueClaimCheckAsync(string blobName, byte[]? envelope)
    {
        if (envelope is not null)
        {
            await Claims.GetBlobClient(blobName).UploadAsync(new BinaryData(envelope), overwrite: true);
        }

        return await EnqueueAsync(QueueTestResources.ClaimCheckJson(Claims.Name, blobName));
    }

    /// <summary>Downloads the blob a <c>{"container","blob"}</c> reference names.</summary>
    public async Task<byte[]> DownloadAsync(JToken reference)
    {
        ArgumentNullException.ThrowIfNull(reference);
        var blob = BlobService.GetBlobContainerClient(reference.Value<string>("container")).GetBlobClient(reference.Value<string>("blob"));
        return (await blob.DownloadContentAsync()).Value.Content.ToArray();
    }

    /// <summary>Takes messages off <paramref name="queue"/> until <paramref name="count"/> arrived or the timeout passed; returns their JSON (decoded from base64).</summary>
    public static async Task<List<JObject>> ReceiveAsync(QueueClient queue, int count, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(queue);
        var received = new List<JObject>();
        var clock = Stopwatch.StartNew();
        while (received.Count < count && clock.Elapsed < timeout)
        {
            var batch = (await queue.ReceiveMessagesAsync(32)).Value;
            foreach (var message in batch)
            {
                received.Add(JObject.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(message.Body.ToString()))));
                await queue.DeleteMessageAsync(message.MessageId, message.PopReceipt);
            }

            if (batch.Length == 0)
            {
                await Task.Delay(50);
            }
        }

        return received;
    }

    /// <summary>Receives and deletes one message as its raw text (no base64 decoding), or null after <paramref name="timeout"/>.</summary>
    public static async Task<string?> ReceiveRawAsync(QueueClient queue, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(queue);
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            var message = (await queue.ReceiveMessageAsync()).Value;
            if (message is not null)
            {
                await queue.DeleteMessageAsync(message.MessageId, message.PopReceipt);
                return message.Body.ToString();
            }

            await Task.Delay(50);
        }

        return null;
    }

    /// <summary>Waits until the queue holds no message, visible or not; false if it still does after the timeout.</summary>
    public static async Task<bool> WaitEmptyAsync(QueueClient queue, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        do
        {
            if (await CountAsync(queue) == 0)
            {
                return true;
            }

            await Task.Delay(100);
        }
        while (clock.Elapsed < timeout);
        return false;
    }

    /// <summary>How many messages the queue holds, visible or not.</summary>
    public static async Task<int> CountAsync(QueueClient queue)
    {
        ArgumentNullException.ThrowIfNull(queue);
        return (await queue.GetPropertiesAsync()).Value.ApproximateMessagesCount;
    }

    /// <summary>Stops the host (graceful shutdown), once.</summary>
    public async Task StopAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        await StopAsync(cancel.Token);
    }

    /// <summary>Stops the host (graceful shutdown), once; the host gives up waiting for it when <paramref name="giveUp"/> is cancelled.</summary>
    public async Task StopAsync(CancellationToken giveUp)
    {
        if (_stopped)
        {
            return;
        }

        _stopped = true;
        await _host.StopAsync(giveUp);
    }

    public async ValueTask DisposeAsync()
    {
        await StopAsync(TimeSpan.FromSeconds(30));
        _host.Dispose();
    }

    private static IEnumerable<KeyValuePair<string, string?>> ShippedHostJson() =>
        new ConfigurationBuilder().AddJsonFile(Path.Combine(RepoRoot.Path, "host.json"), optional: false).Build().AsEnumerable()
            .Where(pair => pair.Value is not null);
}
