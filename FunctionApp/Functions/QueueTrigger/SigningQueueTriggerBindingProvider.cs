using System.Reflection;
using FunctionApp.Queues;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Host.Triggers;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>Turns a <see cref="SigningQueueTriggerAttribute"/> parameter into a trigger binding when the host indexes functions.</summary>
internal sealed class SigningQueueTriggerBindingProvider : ITriggerBindingProvider
{
    private readonly QueueStorage _storage;
    private readonly SigningQueueTriggerOptions _options;
    private readonly INameResolver _nameResolver;
    private readonly ILoggerFactory _loggerFactory;

    public SigningQueueTriggerBindingProvider(QueueStorage storage, SigningQueueTriggerOptions options, INameResolver nameResolver, ILoggerFactory loggerFactory)
    {
        _storage = storage;
        _options = options;
        _nameResolver = nameResolver;
        _loggerFactory = loggerFactory;
    }

    public Task<ITriggerBinding?> TryCreateAsync(TriggerBindingProviderContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var parameter = context.Parameter;
        var attribute = parameter.GetCustomAttribute<SigningQueueTriggerAttribute>(inherit: false);
        if (attribute is null)
        {
            return Task.FromResult<ITriggerBinding?>(null);
        }

        if (parameter.ParameterType != typeof(SigningQueueMessage))
        {
            throw new InvalidOperationException(
                $"[{nameof(SigningQueueTriggerAttribute)}] binds only to a parameter of type {nameof(SigningQueueMessage)}; '{parameter.Name}' is {parameter.ParameterType.Name}.");
        }

        var queueName = attribute.QueueName is null ? _storage.Options.Input : Resolve(attribute.QueueName);
        ITriggerBinding binding = new SigningQueueTriggerBinding(
            parameter.Name ?? "message", queueName, _storage, _options, _loggerFactory.CreateLogger("FunctionApp.QueueTrigger"));
        return Task.FromResult<ITriggerBinding?>(binding);
    }

    private string Resolve(string queueName)
    {
        // "%Queues:Input%" style: the whole name is one app-setting expression, resolved from configuration.
        if (queueName.Length > 2 && queueName[0] == '%' && queueName[^1] == '%')
        {
            var setting = queueName[1..^1];
            return _nameResolver.Resolve(setting) is { Length: > 0 } resolved
                ? resolved
                : throw new InvalidOperationException($"The queue name '{queueName}' names the setting '{setting}', which is not set.");
        }

        return queueName;
    }
}
