using System.Reflection;
using WidgetSigning.Storage;
using WidgetSigning.Queues;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Host.Triggers;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>Turns a <see cref="WidgetQueueTriggerAttribute"/> parameter into a trigger binding when the host indexes functions.</summary>
internal sealed class WidgetQueueTriggerBindingProvider : ITriggerBindingProvider
{
    private readonly WidgetStorageClientFactory _clients;
    private readonly WidgetQueueOptions _options;
    private readonly INameResolver _nameResolver;
    private readonly ILoggerFactory _loggerFactory;

    public WidgetQueueTriggerBindingProvider(WidgetStorageClientFactory clients, WidgetQueueOptions options, INameResolver nameResolver, ILoggerFactory loggerFactory)
    {
        _clients = clients;
        _options = options;
        _nameResolver = nameResolver;
        _loggerFactory = loggerFactory;
    }

    public Task<ITriggerBinding?> TryCreateAsync(TriggerBindingProviderContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var parameter = context.Parameter;
        var attribute = parameter.GetCustomAttribute<WidgetQueueTriggerAttribute>(inherit: false);
        if (attribute is null)
        {
            return Task.FromResult<ITriggerBinding?>(null);
        }

        if (parameter.ParameterType != typeof(SigningQueueMessage))
        {
            throw new InvalidOperationException(
                $"[{nameof(WidgetQueueTriggerAttribute)}] binds only to a parameter of type {nameof(SigningQueueMessage)}; '{parameter.Name}' is {parameter.ParameterType.Name}.");
        }

        var queueName = Resolve(attribute.QueueName, "queue name");
        var connection = Resolve(attribute.Connection ?? "AzureWebJobsStorage", "connection");
        var receiveFailures = new ReceiveFailureCounter();
        ITriggerBinding binding = new WidgetQueueTriggerBinding(
            parameter.Name ?? "message", _clients.CreateQueueServiceClient(connection, receiveFailures), receiveFailures, queueName, _options, _loggerFactory.CreateLogger("FunctionApp.QueueTrigger"));
        return Task.FromResult<ITriggerBinding?>(binding);
    }

    private string Resolve(string value, string what)
    {
        // "%WidgetInputQueue%": one flat app setting, as the platform resolves it.
        var resolved = value.Length > 2 && value[0] == '%' && value[^1] == '%' ? _nameResolver.Resolve(value[1..^1]) : value;
        return string.IsNullOrWhiteSpace(resolved) || resolved.Contains('%', StringComparison.Ordinal)
            ? throw new InvalidOperationException($"The queue trigger's {what} '{value}' names a setting that is not set.")
            : resolved;
    }
}
