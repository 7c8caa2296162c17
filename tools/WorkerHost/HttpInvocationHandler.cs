using Microsoft.AspNetCore.Http;
using Microsoft.Azure.Functions.Worker.Grpc.Messages;
using Yarp.ReverseProxy.Forwarder;

namespace WorkerHost;

/// <summary>
/// An HTTP trigger invocation as the Functions host runs it for a proxying worker (azure-functions-host@89dc438d):
/// <list type="bullet">
/// <item><c>DefaultHttpProxyService.StartForwarding</c> (src/WebJobs.Script.Grpc/Server/DefaultHttpProxyService.cs): the
/// invocation id is added to the request with <c>TryAdd</c>, and YARP forwards it to the worker's <c>HttpUri</c> over a
/// <see cref="SocketsHttpHandler"/> (no redirects, no cookies) behind <see cref="RetryProxyHandler"/>, with a 240 s
/// activity timeout; the InvocationRequest goes over gRPC at the same time.</item>
/// <item><c>GrpcWorkerChannel.InvokeResponse</c> (src/WebJobs.Script.Grpc/Channel/GrpcWorkerChannel.cs): when the
/// worker's InvocationResponse arrives, <c>EnsureSuccessfulForwardingAsync</c> awaits the forwarding and throws if it
/// failed, so the invocation fails even when the function succeeded.</item>
/// <item><c>FunctionInvocationMiddleware</c> awaits the invocation; a failed one reaches <c>ExceptionMiddleware</c>
/// (src/WebJobs.Script.WebHost/Middleware/ExceptionMiddleware.cs), which logs it and answers 500 with no body if
/// nothing was sent yet, or rethrows (Kestrel aborts the connection) if the response had started. Whatever status
/// YARP set for a failed forward is replaced by that 500.</item>
/// </list>
/// .NET's HTTP/1.1 client returns the worker's response only once the request body is fully sent (the worker's
/// <c>HttpUri</c> is plain http, so the forward is HTTP/1.1), so an answer the worker gives before the body ends reaches
/// the client only if the rest of the body still reaches the worker.
/// </summary>
internal sealed class HttpInvocationHandler(WorkerSupervisor supervisor, IHttpForwarder forwarder) : IDisposable
{
    private const string InvocationIdHeader = "x-ms-invocation-id";
    private static readonly TimeSpan WorkerWait = TimeSpan.FromSeconds(30);
    private static readonly ForwarderRequestConfig Config = new() { ActivityTimeout = TimeSpan.FromSeconds(240) };

    private readonly HttpMessageInvoker _invoker = new(new RetryProxyHandler(new SocketsHttpHandler
    {
        AllowAutoRedirect = false,
        UseCookies = false,
    }));

    public RequestDelegate For(string functionName, string bindingName) => context => InvokeAsync(context, functionName, bindingName);

    public void Dispose() => _invoker.Dispose();

    private async Task InvokeAsync(HttpContext context, string functionName, string bindingName)
    {
        try
        {
            await InvokeFunctionAsync(context, functionName, bindingName).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException || !context.RequestAborted.IsCancellationRequested)
        {
            // As ExceptionMiddleware: logged as the host's error, 500 if nothing was sent, else the connection is aborted.
            Console.WriteLine($"WorkerHost: fail: {functionName}: {e.GetType().Name}: {e.Message}{Inner(e)}");
            if (context.Response.HasStarted)
            {
                throw;
            }

            context.Response.Clear();
            context.Response.StatusCode = StatusCodes.Status500InternalServerError;
        }
    }

    private async Task InvokeFunctionAsync(HttpContext context, string functionName, string bindingName)
    {
        WorkerChannel channel;
        try
        {
            channel = await supervisor.GetReadyAsync(WorkerWait, context.RequestAborted).ConfigureAwait(false);
        }
        catch (WorkerUnavailableException e)
        {
            // As HostAvailabilityCheckMiddleware: the host is not running.
            Console.WriteLine($"WorkerHost: {functionName}: the worker is not available: {e.Message}");
            context.Response.StatusCode = StatusCodes.Status503ServiceUnavailable;
            return;
        }

        var invocationId = Guid.NewGuid().ToString();
        context.Request.Headers.TryAdd(InvocationIdHeader, invocationId);
        using var span = InvocationTrace.StartHttp(context, functionName);
        var request = new InvocationRequest
        {
            InvocationId = invocationId,
            FunctionId = channel.Function(functionName)?.FunctionId ?? "",
            TraceContext = InvocationTrace.For(span),
            InputData = { new ParameterBinding { Name = bindingName, Data = new TypedData { Http = new RpcHttp() } } },
        };

        var forward = forwarder.SendAsync(context, channel.HttpUri.ToString(), _invoker, Config).AsTask();
        var response = await channel.InvokeAsync(request, context.RequestAborted).ConfigureAwait(false);
        var error = await forward.ConfigureAwait(false);
        if (error != ForwarderError.None)
        {
            throw new InvalidOperationException(
                $"Failed to proxy request with ForwarderError: {error}", context.Features.Get<IForwarderErrorFeature>()?.Exception);
        }

        if (response.Result?.Status != StatusResult.Types.Status.Success)
        {
            throw new InvalidOperationException($"The invocation failed: {response.Result?.Status}: {response.Result?.Exception?.Message}");
        }
    }

    private static string Inner(Exception e) => e.InnerException is { } inner ? $" ({inner.GetType().Name}: {inner.Message})" : "";
}
