using Grpc.Core;
using Microsoft.Azure.Functions.Worker.Grpc.Messages;

namespace WorkerHost;

/// <summary>The host's gRPC service: each worker opens one EventStream and must start it with StartStream(worker_id).</summary>
internal sealed class FunctionRpcService(WorkerSupervisor supervisor) : FunctionRpc.FunctionRpcBase
{
    public override async Task EventStream(IAsyncStreamReader<StreamingMessage> requestStream, IServerStreamWriter<StreamingMessage> responseStream, ServerCallContext context)
    {
        if (!await requestStream.MoveNext(context.CancellationToken).ConfigureAwait(false))
        {
            return;
        }

        // As FunctionRpcService in the host: only StartStream may open a stream, and it names a worker the host started.
        var first = requestStream.Current;
        var channel = first.ContentCase == StreamingMessage.ContentOneofCase.StartStream ? supervisor.Attach(first.StartStream.WorkerId) : null;
        if (channel is null)
        {
            Console.Error.WriteLine($"WorkerHost: ignoring an event stream that did not start with StartStream for a known worker ({first.ContentCase}).");
            return;
        }

        await channel.RunStreamAsync(requestStream, responseStream, context.CancellationToken).ConfigureAwait(false);
    }
}
