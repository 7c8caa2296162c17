using System.Diagnostics;
using System.Text;
using FunctionApp.Functions;
using FunctionApp.Queues;
using Microsoft.Azure.Storage;
using Microsoft.Azure.Storage.Blob;
using Microsoft.Azure.Storage.Queue;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Host;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Newtonsoft.Json.Linq;
using LogLevel = Microsoft.Extensions.Logging.LogLevel;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>
/// The queue function running in the real WebJobs SDK host against Azurite, wired the way the in-process Functions
/// host wires it: the official storage extension (<c>AddAzureStorage()</c>, as extensions.json has the host load it),
/// the shipped host.json under <c>AzureFunctionsJobHost</c>, <c>FunctionApp.Startup</c> run through
/// <c>UseWebJobsStartup</c> with a builder context, and function discovery limited to <see cref="SignQueueFunction"/>.
/// Each host gets its own queue and container names, so tests sharing one Azurite do not see each other's messages.
/// </summary>
public sealed class QueueFunctionHost : IAsyncDisposable
{
    /// <summary>The longest wait between polls of an empty queue in tests (host.json ships 5 s).</summary>
    public static readonly TimeSpan TestPollingInterval = TimeSpan.FromMilliseconds(200);

    private readonly IHost _host;

    private QueueFunctionHost(IHost host, CloudStorageAccount account, string prefix)
    {
        _host = host;
        Account = account;
        Input = Queue(prefix + "-in");
        Output = Queue(prefix + "-out");
        Rejected = Queue(prefix + "-rej");
        Poison = Queue(prefix + "-in-poison");
        Claims = account.CreateCloudBlobClient().GetContainerReference(prefix + "-claims");
        Canonical = account.CreateCloudBlobClient().GetContainerReference(prefix + "-canonical");
        RejectedBodies = account.CreateCloudBlobClient().GetContainerReference(prefix + "-rejected");
    }

    public CloudStorageAccount Account { get; }

    public CloudQueue Input { get; }

    public CloudQueue Output { get; }

    public CloudQueue Rejected { get; }

    public CloudQueue Poison { get; }

    public CloudBlobContainer Claims { get; }

    public CloudBlobContainer Canonical { get; }

    public CloudBlobContainer RejectedBodies { get; }

    public IServiceProvider Services => _host.Services;

    /// <summary>
    /// Starts a host. <paramref name="hostJson"/> overrides host.json <c>extensions.queues</c> keys (camelCase);
    /// <paramref name="appSettings"/> adds or overrides app settings (<c>Section:Key</c>; a null value unsets one).
    /// </summary>
    public static async Task<QueueFunctionHost> StartAsync(
        AzuriteFixture azurite,
        ITestOutputHelper output,
        IDictionary<string, string?>? hostJson = null,
        Action<IServiceCollection>? overrideServices = null,
        IDictionary<string, string?>? appSettings = null)
    {
        var prefix = "t" + Guid.NewGuid().ToString("N")[..12];
        var settings = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase)
        {
            // As the Functions host does: host.json lives under AzureFunctionsJobHost, app settings at the root.
            ["AzureWebJobsConfigurationSection"] = "AzureFunctionsJobHost",
            ["AzureWebJobsStorage"] = azurite.ConnectionString,
            [QueueOptions.ConnectionSetting] = azurite.ConnectionString,
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
            ["WidgetInputQueue"] = prefix + "-in",
            ["WidgetOutputQueue"] = prefix + "-out",
            ["WidgetRejectedQueue"] = prefix + "-rej",
            ["WidgetClaimsContainer"] = prefix + "-claims",
            ["WidgetCanonicalContainer"] = prefix + "-canonical",
            ["WidgetRejectedContainer"] = prefix + "-rejected",

        };
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
        var host = new HostBuilder()
            .UseEnvironment("Development")
            .ConfigureAppConfiguration(c => c.AddInMemoryCollection(settings))
            .ConfigureLogging(b => b.SetMinimumLevel(LogLevel.Warning).AddProvider(new TestOutputLoggerProvider(output, LogLevel.Warning)))
            .ConfigureWebJobs((context, builder) =>
            {
                var startupContext = new WebJobsBuilderContext
                {
                    Configuration = context.Configuration,
                    ApplicationRootPath = AppContext.BaseDirectory,
                    EnvironmentName = context.HostingEnvironment.EnvironmentName,
                };
                builder.AddAzureStorage();
                builder.UseWebJobsStartup(typeof(Startup), startupContext, loggerFactory);
            })
            .ConfigureServices(services =>
            {
                services.AddSingleton<ITypeLocator>(new FixedTypeLocator(typeof(SignQueueFunction)));

                // Tests poll fast; everything else comes from the shipped host.json. A post-configure, because the
                // extension itself caps the interval at 2 s in the Development environment after binding host.json.
                services.PostConfigure<QueuesOptions>(options => options.MaxPollingInterval = TestPollingInterval);
                overrideServices?.Invoke(services);
            })
            .Build();

        var account = CloudStorageAccount.Parse(azurite.ConnectionString);
        var wrapper = new QueueFunctionHost(host, account, prefix);
        await wrapper.Claims.CreateIfNotExistsAsync();
        await wrapper.Input.CreateIfNotExistsAsync();
        await wrapper.Output.CreateIfNotExistsAsync();
        await wrapper.Rejected.CreateIfNotExistsAsync();
        await wrapper.Poison.CreateIfNotExistsAsync();
        await host.StartAsync();
        return wrapper;
    }

    /// <summary>Enqueues <paramref name="json"/> base64-encoded (what the extension 4.x expects); returns the message id.</summary>
    public async Task<string> EnqueueAsync(byte[] json)
    {
        var message = new CloudQueueMessage(Convert.ToBase64String(json));
        await RawInput.AddMessageAsync(message);
        return message.Id;
    }

    /// <summary>Enqueues <paramref name="text"/> as is, not base64-encoded.</summary>
    public async Task<string> EnqueueRawAsync(string text)
    {
        var message = new CloudQueueMessage(text);
        await RawInput.AddMessageAsync(message);
        return message.Id;
    }

    /// <summary>Uploads <paramref name="envelope"/> to the claims container and enqueues a claim check for it.</summary>
    public async Task<string> EnqueueClaimCheckAsync(string blobName, byte[]? envelope)
    {
        if (envelope is not null)
        {
            await Claims.GetBlockBlobReference(blobName).UploadFromByteArrayAsync(envelope, 0, envelope.Length);
        }

        return await EnqueueAsync(Encoding.UTF8.GetBytes($"{{\"claimCheck\":{{\"container\":\"{Claims.Name}\",\"blob\":\"{blobName}\"}}}}"));
    }

    /// <summary>Takes messages off <paramref name="queue"/> until <paramref name="count"/> arrived or the timeout passed; returns their JSON.</summary>
    public static async Task<List<JObject>> ReceiveAsync(CloudQueue queue, int count, TimeSpan timeout)
    {
        var received = new List<JObject>();
        var clock = Stopwatch.StartNew();
        while (received.Count < count && clock.Elapsed < timeout)
        {
            var batch = (await queue.GetMessagesAsync(32)).ToList();
            foreach (var message in batch)
            {
                // Output is base64 of UTF-8 JSON (the extension's encoding); AsString decodes it with the SDK's default EncodeMessage.
                received.Add(JObject.Parse(message.AsString));
                await queue.DeleteMessageAsync(message);
            }

            if (batch.Count == 0)
            {
                await Task.Delay(50);
            }
        }

        return received;
    }

    /// <summary>Receives and deletes one message as its raw text (no base64 decoding), or null after <paramref name="timeout"/>.</summary>
    public static async Task<string?> ReceiveRawAsync(CloudQueue queue, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(queue);
        queue = queue.ServiceClient.GetQueueReference(queue.Name);
        queue.EncodeMessage = false;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            var message = await queue.GetMessageAsync();
            if (message is not null)
            {
                await queue.DeleteMessageAsync(message);
                return message.AsString;
            }

            await Task.Delay(50);
        }

        return null;
    }

    /// <summary>Waits until the queue holds no message, visible or not; false if it still does after the timeout.</summary>
    public static async Task<bool> WaitEmptyAsync(CloudQueue queue, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        do
        {
            await queue.FetchAttributesAsync();
            if (queue.ApproximateMessageCount == 0)
            {
                return true;
            }

            await Task.Delay(100);
        }
        while (clock.Elapsed < timeout);
        return false;
    }

    /// <summary>How many messages the queue holds, visible or not.</summary>
    public static async Task<int> CountAsync(CloudQueue queue)
    {
        await queue.FetchAttributesAsync();
        return queue.ApproximateMessageCount ?? 0;
    }

    public async ValueTask DisposeAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await _host.StopAsync(timeout.Token);
        _host.Dispose();
    }

    private CloudQueue RawInput
    {
        get
        {
            var queue = Account.CreateCloudQueueClient().GetQueueReference(Input.Name);
            queue.EncodeMessage = false;
            return queue;
        }
    }

    private CloudQueue Queue(string name) => Account.CreateCloudQueueClient().GetQueueReference(name);

    private static IEnumerable<KeyValuePair<string, string?>> ShippedHostJson() =>
        new ConfigurationBuilder().AddJsonFile(Path.Combine(RepoRoot.Path, "host.json"), optional: false).Build().AsEnumerable()
            .Where(pair => pair.Value is not null);

    private sealed class FixedTypeLocator(params Type[] types) : ITypeLocator
    {
        public IReadOnlyList<Type> GetTypes() => types;
    }
}
