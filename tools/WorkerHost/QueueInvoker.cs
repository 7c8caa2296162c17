using Microsoft.Azure.Functions.Worker.Grpc.Messages;
using Microsoft.Azure.WebJobs;

namespace WorkerHost;

/// <summary>The body of every emitted queue function: hands the WebJobs trigger's message to the worker as an InvocationRequest.</summary>
/// <remarks>Public and static because the emitted (dynamic-assembly) methods call it directly, as the host's generated functions do.</remarks>
public static class QueueInvoker
{
    // Long enough to ride out a worker restart, so a crash does not burn the messages' dequeue counts.
    private static readonly TimeSpan WorkerWait = TimeSpan.FromMinutes(2);

    internal static WorkerSupervisor? Supervisor { get; set; }

    internal static IReadOnlyDictionary<string, string> BindingNames { get; set; } = new Dictionary<string, string>();

    /// <summary>Invokes <paramref name="functionName"/> in the worker; throws on failure so the extension retries, then poisons.</summary>
    /// <param name="functionName">The function (also the emitted method's name).</param>
    /// <param name="data">The queue message as the extension binds it for deferred binding (JSON of the QueueMessage).</param>
    /// <param name="cancellationToken">Fires when the WebJobs host stops.</param>
    /// <returns>A task that completes when the worker has answered.</returns>
    public static async Task InvokeAsync(string functionName, ParameterBindingData data, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(data);
        var supervisor = Supervisor ?? throw new InvalidOperationException("The worker host is not started.");
        var channel = await supervisor.GetReadyAsync(WorkerWait, cancellationToken).ConfigureAwait(false);
        using var span = InvocationTrace.StartQueue(functionName);
        var request = new InvocationRequest
        {
            InvocationId = Guid.NewGuid().ToString(),
            FunctionId = channel.Function(functionName)?.FunctionId ?? "",
            TraceContext = InvocationTrace.For(span),
            InputData =
            {
                new ParameterBinding
                {
                    Name = BindingNames.GetValueOrDefault(functionName, "message"),
                    Data = new TypedData
                    {
                        ModelBindingData = new ModelBindingData
                        {
                            Version = data.Version,
                            Source = data.Source,
                            ContentType = data.ContentType,
                            Content = Google.Protobuf.ByteString.CopyFrom(data.Content.ToMemory().Span),
                        },
                    },
                },
            },
        };
        var response = await channel.InvokeAsync(request, cancellationToken).ConfigureAwait(false);
        if (response.Result?.Status != StatusResult.Types.Status.Success)
        {
            throw new InvalidOperationException($"{functionName} {response.Result?.Status}: {response.Result?.Exception?.Message}");
        }
    }
}
