using Azure.Storage.Queues;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Host.Timers;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace WorkerHost;

/// <summary>The WebJobs SDK host with the official Storage Queues extension, listening for the emitted queue functions.</summary>
internal static class QueuesHostFactory
{
    public static IHost Create(AppDescription app, Type functions, ListenerFailureHandler failures)
    {
        var queues = app.Extension("queues");
        return new HostBuilder()
            .ConfigureAppConfiguration(config => config
                // The app settings resolve %WidgetInputQueue% and the connections (a connection string, or
                // <name>__queueServiceUri and friends for an identity), as in the host's configuration.
                .AddInMemoryCollection(app.Settings.Select(s => new KeyValuePair<string, string?>(s.Key, s.Value)))
                // The environment wins over local.settings.json, as with func start.
                .AddEnvironmentVariables())
            .ConfigureWebJobs(builder => builder.AddAzureStorageQueues(options =>
            {
                // host.json extensions.queues, as the host binds it to QueuesOptions.
                options.BatchSize = Json.Int(queues, "batchSize") ?? options.BatchSize;
                options.NewBatchThreshold = Json.Int(queues, "newBatchThreshold") ?? options.NewBatchThreshold;
                options.MaxDequeueCount = Json.Int(queues, "maxDequeueCount") ?? options.MaxDequeueCount;
                options.VisibilityTimeout = Json.Duration(queues, "visibilityTimeout") ?? options.VisibilityTimeout;
                options.MaxPollingInterval = Json.Duration(queues, "maxPollingInterval") ?? options.MaxPollingInterval;
                if (Enum.TryParse<QueueMessageEncoding>(Json.Text(queues, "messageEncoding"), ignoreCase: true, out var encoding))
                {
                    options.MessageEncoding = encoding;
                }
            }))
            .ConfigureLogging(logging => logging
                .ClearProviders()
                .AddSimpleConsole(o => o.SingleLine = true)
                .AddFilter("Microsoft", LogLevel.Warning)
                .AddFilter("Azure", LogLevel.Warning)
                // The listeners poll queues that may not exist yet (404 QueueNotFound is expected); errors still show.
                .AddFilter("Azure.Core", LogLevel.Error)
                .AddFilter("Host", LogLevel.Warning)
                .AddFilter("Host.Results", LogLevel.Information)
                .AddFilter("Function", LogLevel.Information))
            .ConfigureServices(services =>
            {
                services.AddSingleton<ITypeLocator>(new FixedTypeLocator([functions]));
                // Registered after the SDK's (TryAdd), so this one is resolved: a listener failure is logged and the host
                // restarted, as the Functions host survives it, instead of rethrown on a new thread (ending the process).
                services.AddSingleton<IWebJobsExceptionHandler>(failures);
                services.Configure<ConsoleLifetimeOptions>(o => o.SuppressStatusMessages = true);
            })
            .Build();
    }
}
