using WidgetSigning.Storage;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Description;
using Microsoft.Azure.WebJobs.Host.Config;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// The WebJobs extension that makes <see cref="WidgetQueueTriggerAttribute"/> a trigger. Its configuration section is
/// <c>queues</c>, so host.json <c>extensions.queues</c> binds to <see cref="WidgetQueueOptions"/> as it did for the
/// official storage extension.
/// </summary>
[Extension("WidgetQueues", WidgetQueueOptions.ExtensionSection)]
internal sealed class WidgetQueueExtensionConfigProvider : IExtensionConfigProvider
{
    private readonly WidgetStorageClientFactory _clients;
    private readonly IOptions<WidgetQueueOptions> _options;
    private readonly INameResolver _nameResolver;
    private readonly ILoggerFactory _loggerFactory;

    public WidgetQueueExtensionConfigProvider(WidgetStorageClientFactory clients, IOptions<WidgetQueueOptions> options, INameResolver nameResolver, ILoggerFactory loggerFactory)
    {
        _clients = clients;
        _options = options;
        _nameResolver = nameResolver;
        _loggerFactory = loggerFactory;
    }

    public void Initialize(ExtensionConfigContext context)
    {
        ArgumentNullException.ThrowIfNull(context);

        // Reading Value validates the options (DataAnnotations), so a bad host.json fails indexing, naming the key.
        context.AddBindingRule<WidgetQueueTriggerAttribute>()
            .BindToTrigger(new WidgetQueueTriggerBindingProvider(_clients, _options.Value, _nameResolver, _loggerFactory));
    }
}
