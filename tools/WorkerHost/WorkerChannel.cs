using System.Collections.Concurrent;
using System.Threading.Channels;
using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Microsoft.Azure.Functions.Worker.Grpc.Messages;

namespace WorkerHost;

/// <summary>The host's side of one worker process's event stream: init, metadata, load, invocations and logs.</summary>
internal sealed class WorkerChannel(string workerId)
{
    private static readonly TimeSpan StartStreamTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan InitTimeout = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan LoadTimeout = TimeSpan.FromMinutes(1);

    // The gRPC response stream allows one writer at a time, so every send goes through this queue and one loop.
    private readonly Channel<StreamingMessage> _outbound = Channel.CreateUnbounded<StreamingMessage>(new UnboundedChannelOptions { SingleReader = true });
    private readonly TaskCompletionSource _streamStarted = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<WorkerInitResponse> _init = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<FunctionMetadataResponse> _metadata = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly ConcurrentDictionary<string, TaskCompletionSource<FunctionLoadResponse>> _loads = new();
    private readonly ConcurrentDictionary<string, TaskCompletionSource<InvocationResponse>> _invocations = new();
    private readonly CancellationTokenSource _closed = new();
    private Dictionary<string, WorkerFunction> _functions = new(StringComparer.OrdinalIgnoreCase);
    private IReadOnlyDictionary<string, string> _capabilities = new Dictionary<string, string>();
    private volatile Exception? _failure;

    public string WorkerId { get; } = workerId;

    public bool IsFailed => _failure is not null;

    /// <summary>The worker's ASP.NET Core endpoint (the <c>HttpUri</c> capability).</summary>
    public Uri HttpUri { get; private set; } = new("http://127.0.0.1/");

    public IReadOnlyCollection<WorkerFunction> Functions => _functions.Values;

    /// <summary>Runs the stream the worker opened (its StartStream already read) until it ends or the channel fails.</summary>
    public async Task RunStreamAsync(IAsyncStreamReader<StreamingMessage> requests, IServerStreamWriter<StreamingMessage> responses, CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closed.Token);
        var writer = WriteLoopAsync(responses, linked.Token);
        _streamStarted.TrySetResult();
        try
        {
            while (await requests.MoveNext(linked.Token).ConfigureAwait(false))
            {
                Dispatch(requests.Current);
            }
        }
        catch (Exception e) when (e is OperationCanceledException or Grpc.Core.RpcException or IOException)
        {
            // The worker went away or the host is stopping; Fail below tells the waiters.
        }
        finally
        {
            Fail(new WorkerUnavailableException("the worker's event stream ended"));
            await writer.ConfigureAwait(false);
        }
    }

    /// <summary>WorkerInitRequest, FunctionsMetadataRequest, then one FunctionLoadRequest per function, with the host's time-outs.</summary>
    public async Task InitializeAsync(AppDescription app, CancellationToken cancellationToken)
    {
        await Await(_streamStarted.Task, StartStreamTimeout, "open its event stream (StartStream)", cancellationToken).ConfigureAwait(false);
        Send(new StreamingMessage
        {
            WorkerInitRequest = new WorkerInitRequest
            {
                HostVersion = ProtocolMessages.HostVersion,
                WorkerDirectory = app.Root,
                FunctionAppDirectory = app.Root,
                Capabilities = { ["MultiStream"] = "10" },
            },
        });
        var init = await Await(_init.Task, InitTimeout, "answer WorkerInitRequest", cancellationToken).ConfigureAwait(false);
        if (init.Result?.Status != StatusResult.Types.Status.Success)
        {
            throw new WorkerUnavailableException($"the worker failed to initialise: {init.Result?.Exception?.Message}");
        }

        _capabilities = new Dictionary<string, string>(init.Capabilities, StringComparer.OrdinalIgnoreCase);
        // The app uses ASP.NET Core integration: without HttpUri there is nowhere to forward HTTP requests to.
        if (!_capabilities.TryGetValue("HttpUri", out var httpUri) || !Uri.TryCreate(httpUri, UriKind.Absolute, out var uri))
        {
            throw new WorkerUnavailableException("the worker did not report an HttpUri capability (ASP.NET Core integration); this host forwards HTTP only to such workers.");
        }

        HttpUri = uri;
        Send(new StreamingMessage { FunctionsMetadataRequest = new FunctionsMetadataRequest { FunctionAppDirectory = app.Root } });
        var metadata = await Await(_metadata.Task, LoadTimeout, "answer FunctionsMetadataRequest", cancellationToken).ConfigureAwait(false);
        if (metadata.Result?.Status == StatusResult.Types.Status.Failure || metadata.UseDefaultMetadataIndexing)
        {
            throw new WorkerUnavailableException($"the worker did not index the functions (worker indexing): {metadata.Result?.Exception?.Message}");
        }

        var functions = metadata.FunctionMetadataResults.Select(ProtocolMessages.ToFunction).ToList();
        var loads = functions.Select(f =>
        {
            var completion = _loads.GetOrAdd(f.FunctionId, _ => new(TaskCreationOptions.RunContinuationsAsynchronously));
            Send(new StreamingMessage { FunctionLoadRequest = ProtocolMessages.ToLoadRequest(f) });
            return (Function: f, Response: completion.Task);
        }).ToList();
        foreach (var (function, response) in loads)
        {
            var loaded = await Await(response, LoadTimeout, $"load {function.Name}", cancellationToken).ConfigureAwait(false);
            if (loaded.Result?.Status != StatusResult.Types.Status.Success)
            {
                throw new WorkerUnavailableException($"the worker failed to load {function.Name}: {loaded.Result?.Exception?.Message}");
            }
        }

        _functions = functions.ToDictionary(f => f.Name, StringComparer.OrdinalIgnoreCase);
    }

    public WorkerFunction? Function(string name) => _functions.GetValueOrDefault(name);

    /// <summary>Sends the invocation and waits for its response; fails if the worker goes away first.</summary>
    public async Task<InvocationResponse> InvokeAsync(InvocationRequest request, CancellationToken cancellationToken)
    {
        var completion = new TaskCompletionSource<InvocationResponse>(TaskCreationOptions.RunContinuationsAsynchronously);
        _invocations[request.InvocationId] = completion;
        try
        {
            // Checked after registering, so a failure racing with this call either sees the entry or is seen here.
            if (_failure is { } failure)
            {
                throw new WorkerUnavailableException(failure.Message);
            }

            Send(new StreamingMessage { InvocationRequest = request });
            using var cancel = cancellationToken.Register(() =>
            {
                if (_capabilities.ContainsKey("HandlesInvocationCancelMessage"))
                {
                    TrySend(new StreamingMessage { InvocationCancel = new InvocationCancel { InvocationId = request.InvocationId } });
                }
            });
            return await completion.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _invocations.TryRemove(request.InvocationId, out _);
        }
    }

    /// <summary>Asks the worker to stop (it calls StopApplication); the caller kills it after the grace period.</summary>
    public void Terminate(TimeSpan gracePeriod)
    {
        if (_capabilities.ContainsKey("HandlesWorkerTerminateMessage"))
        {
            TrySend(new StreamingMessage { WorkerTerminate = new WorkerTerminate { GracePeriod = Duration.FromTimeSpan(gracePeriod) } });
        }
    }

    /// <summary>Fails everything waiting on this worker (it exited or its stream ended); the first reason wins.</summary>
    public void Fail(Exception reason)
    {
        if (Interlocked.CompareExchange(ref _failure, reason, null) is not null)
        {
            return;
        }

        _outbound.Writer.TryComplete();
        _streamStarted.TrySetException(reason);
        _init.TrySetException(reason);
        _metadata.TrySetException(reason);
        foreach (var waiter in _loads.Values)
        {
            waiter.TrySetException(reason);
        }

        foreach (var waiter in _invocations.Values)
        {
            waiter.TrySetException(reason);
        }

        _closed.Cancel();
    }

    private static async Task<T> Await<T>(Task<T> task, TimeSpan timeout, string what, CancellationToken cancellationToken)
    {
        await Await((Task)task, timeout, what, cancellationToken).ConfigureAwait(false);
        return await task.ConfigureAwait(false);
    }

    private static async Task Await(Task task, TimeSpan timeout, string what, CancellationToken cancellationToken)
    {
        try
        {
            await task.WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw new WorkerUnavailableException($"the worker did not {what} within {timeout.TotalSeconds:0} s");
        }
    }

    private void Send(StreamingMessage message)
    {
        if (!_outbound.Writer.TryWrite(message))
        {
            throw new WorkerUnavailableException(_failure?.Message ?? "the worker's event stream is closed");
        }
    }

    private void TrySend(StreamingMessage message) => _outbound.Writer.TryWrite(message);

    private async Task WriteLoopAsync(IServerStreamWriter<StreamingMessage> responses, CancellationToken cancellationToken)
    {
        try
        {
            await foreach (var message in _outbound.Reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
            {
                await responses.WriteAsync(message, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is OperationCanceledException or Grpc.Core.RpcException or IOException or InvalidOperationException)
        {
            Fail(new WorkerUnavailableException($"writing to the worker failed: {e.Message}"));
        }
    }

    private void Dispatch(StreamingMessage message)
    {
        switch (message.ContentCase)
        {
            case StreamingMessage.ContentOneofCase.WorkerInitResponse: _init.TrySetResult(message.WorkerInitResponse); break;
            case StreamingMessage.ContentOneofCase.FunctionMetadataResponse: _metadata.TrySetResult(message.FunctionMetadataResponse); break;
            case StreamingMessage.ContentOneofCase.FunctionLoadResponse:
                _loads.GetOrAdd(message.FunctionLoadResponse.FunctionId, _ => new(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult(message.FunctionLoadResponse);
                break;
            case StreamingMessage.ContentOneofCase.InvocationResponse:
                if (_invocations.TryGetValue(message.InvocationResponse.InvocationId, out var invocation))
                {
                    invocation.TrySetResult(message.InvocationResponse);
                }

                break;
            case StreamingMessage.ContentOneofCase.RpcLog: WorkerLog.Write(message.RpcLog); break;
            case StreamingMessage.ContentOneofCase.WorkerStatusRequest:
                TrySend(new StreamingMessage { RequestId = message.RequestId, WorkerStatusResponse = new WorkerStatusResponse() });
                break;
            default:
                // Unknown or unused messages are ignored, as both sides of the protocol do.
                break;
        }
    }
}
