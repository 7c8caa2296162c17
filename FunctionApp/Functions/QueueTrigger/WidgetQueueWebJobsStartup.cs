using FunctionApp.Functions.QueueTrigger;
using WidgetSigning.Storage;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

// Listed by the build in bin/extensions.json, from where every host (Azure's, func, the tests' and the local host) loads it.
[assembly: WebJobsStartup(typeof(WidgetQueueWebJobsStartup), "WidgetQueues")]

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>Registers the queue trigger extension and its options (host.json <c>extensions.queues</c>, validated at start).</summary>
public sealed class WidgetQueueWebJobsStartup : IWebJobsStartup
{
    /// <inheritdoc />
    public void Configure(IWebJobsBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddExtension<WidgetQueueExtensionConfigProvider>().BindOptions<WidgetQueueOptions>();
        builder.Services.AddOptions<WidgetQueueOptions>().ValidateDataAnnotations().ValidateOnStart();
        builder.Services.TryAddSingleton(provider => new WidgetStorageClientFactory(provider.GetRequiredService<IConfiguration>()));
    }
}
