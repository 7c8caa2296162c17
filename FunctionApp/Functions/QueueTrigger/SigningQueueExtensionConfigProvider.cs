using FunctionApp.Queues;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Description;
using Microsoft.Azure.WebJobs.Host.Config;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>The WebJobs extension that makes <see cref="SigningQueueTriggerAttribute"/> a trigger.</summary>
[Extension("SigningQueueTrigger", SigningQueueTriggerOptions.ExtensionName)]
internal sealed class SigningQueueExtensionConfigProvider : IExtensionConfigProvider
{
    private readonly QueueStorage _storage;
    private readonly SigningQueueTriggerOptions _options;
    private readonly INameResolver _nameResolver;
    private readonly ILoggerFactory _loggerFactory;

    public SigningQueueExtensionConfigProvider(QueueStorage storage, IOptions<SigningQueueTriggerOptions> options, INameResolver nameResolver, ILoggerFactory loggerFactory)
    {
        _storage = storage;
        _options = options.Value;
        _nameResolver = nameResolver;
        _loggerFactory = loggerFactory;
    }

    public void Initialize(ExtensionConfigContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        context.AddBindingRule<SigningQueueTriggerAttribute>()
            .BindToTrigger(new SigningQueueTriggerBindingProvider(_storage, _options, _nameResolver, _loggerFactory));
    }
}
