using System.Globalization;
using Azure.Storage.Queues;
using WidgetSigning.Queues;
using Microsoft.Azure.WebJobs.Host.Bindings;
using Microsoft.Azure.WebJobs.Host.Listeners;
using Microsoft.Azure.WebJobs.Host.Protocols;
using Microsoft.Azure.WebJobs.Host.Triggers;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>The trigger binding of one function: creates its listener and binds each message to the parameter.</summary>
internal sealed class WidgetQueueTriggerBinding : ITriggerBinding
{
    private static readonly IReadOnlyDictionary<string, Type> Contract = new Dictionary<string, Type>(StringComparer.OrdinalIgnoreCase)
    {
        ["Id"] = typeof(string),
        ["DequeueCount"] = typeof(int),
        ["InsertionTime"] = typeof(DateTimeOffset?),
        ["QueueName"] = typeof(string),
    };

    private readonly string _parameterName;
    private readonly QueueServiceClient _service;
    private readonly ReceiveFailureCounter _receiveFailures;
    private readonly string _queueName;
    private readonly WidgetQueueOptions _options;
    private readonly ILogger _logger;

    public WidgetQueueTriggerBinding(string parameterName, QueueServiceClient service, ReceiveFailureCounter receiveFailures, string queueName, WidgetQueueOptions options, ILogger logger)
    {
        _receiveFailures = receiveFailures;
        _parameterName = parameterName;
        _service = service;
        _queueName = queueName;
        _options = options;
        _logger = logger;
    }

    public Type TriggerValueType => typeof(SigningQueueMessage);

    public IReadOnlyDictionary<string, Type> BindingDataContract => Contract;

    public Task<ITriggerData> BindAsync(object value, ValueBindingContext context)
    {
        var message = value switch
        {
            SigningQueueMessage queued => queued,

            // A manual run (the host's admin "invoke" API) passes the message text, base64 as on the queue.
            string text => QueueMessageDecoder.Decode("manual-" + Guid.NewGuid().ToString("N"), 1, DateTimeOffset.UtcNow, text),
            _ => throw new InvalidOperationException($"The queue trigger cannot bind a {value?.GetType().Name ?? "null"}."),
        };

        var bindingData = new Dictionary<string, object?>(StringComparer.OrdinalIgnoreCase)
        {
            ["Id"] = message.Id,
            ["DequeueCount"] = message.DequeueCount,
            ["InsertionTime"] = message.InsertionTime,
            ["QueueName"] = _queueName,
        };
        ITriggerData data = new TriggerData(new MessageValueProvider(message), bindingData!);
        return Task.FromResult(data);
    }

    public Task<IListener> CreateListenerAsync(ListenerFactoryContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        IListener listener = new WidgetQueueListener(
            _service.GetQueueClient(_queueName),
            _service.GetQueueClient(_queueName + QueueNames.PoisonSuffix),
            _receiveFailures,
            context.Executor,
            _options,
            _logger,
            context.Descriptor.Id,
            TimeProvider.System);
        return Task.FromResult(listener);
    }

    public ParameterDescriptor ToParameterDescriptor() => new TriggerParameterDescriptor
    {
        Name = _parameterName,
        Type = "WidgetQueueTrigger",
    };

    private sealed class MessageValueProvider : IValueProvider
    {
        private readonly SigningQueueMessage _message;

        public MessageValueProvider(SigningQueueMessage message) => _message = message;

        public Type Type => typeof(SigningQueueMessage);

        public Task<object> GetValueAsync() => Task.FromResult<object>(_message);

        public string ToInvokeString() => string.Create(CultureInfo.InvariantCulture, $"{_message.Id} (dequeue count {_message.DequeueCount})");
    }
}
