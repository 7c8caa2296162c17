using System.Net;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Azure.Functions.Worker.Grpc.Messages;
using Microsoft.Extensions.Options;
using Yarp.ReverseProxy.Forwarder;
using KestrelServerOptions = Microsoft.AspNetCore.Server.Kestrel.Core.KestrelServerOptions;

namespace WorkerHost;

/// <summary>An HTTP trigger invocation as the host runs it for a proxying worker: forward the request with YARP and send the InvocationRequest, concurrently.</summary>
internal sealed class HttpInvocationHandler(WorkerSupervisor supervisor, IHttpForwarder forwarder, IOptions<KestrelServerOptions> kestrel) : IDisposable
{
    private const string InvocationIdHeader = "x-ms-invocation-id";
    private static readonly TimeSpan WorkerWait = TimeSpan.FromSeconds(30);
    private static readonly ForwarderRequestConfig Config = new() { ActivityTimeout = TimeSpan.FromSeconds(240) };

    // As DefaultHttpProxyService: a direct connection to the worker, nothing between that could change the exchange.
    private readonly HttpMessageInvoker _invoker = new(new SocketsHttpHandler
    {
        UseProxy = false,
        AllowAutoRedirect = false,
        AutomaticDecompression = DecompressionMethods.None,
        UseCookies = false,
        ConnectTimeout = TimeSpan.FromSeconds(15),
    });

    // The data Kestrel may have counted against its limit but not handed to the forwarder when it refuses a chunked body:
    // its request buffer plus a receive (it parses one buffered read at a time and stops in the middle of it).
    private readonly long _unreadBytes = (kestrel.Value.Limits.MaxRequestBufferSize ?? 1024 * 1024) + (64 * 1024);

    public RequestDelegate For(string functionName, string bindingName) => context => InvokeAsync(context, functionName, bindingName);

    public void Dispose() => _invoker.Dispose();

    private async Task InvokeAsync(HttpContext context, string functionName, string bindingName)
    {
        WorkerChannel channel;
        try
        {
            channel = await supervisor.GetReadyAsync(WorkerWait, context.RequestAborted).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (context.RequestAborted.IsCancellationRequested)
        {
            return;
        }
        catch (WorkerUnavailableException e)
        {
            await FailAsync(context, StatusCodes.Status503ServiceUnavailable, $"The worker is not available: {e.Message}").ConfigureAwait(false);
            return;
        }

        var invocationId = Guid.NewGuid().ToString();
        // The worker pairs this request with the invocation by this header; the host only adds it if absent (TryAdd), but a
        // client must not be able to address another invocation, so any value it sent is replaced by ours.
        context.Request.Headers.Remove(InvocationIdHeader);
        context.Request.Headers[InvocationIdHeader] = invocationId;
        var request = new InvocationRequest
        {
            InvocationId = invocationId,
            FunctionId = channel.Function(functionName)?.FunctionId ?? "",
            TraceContext = new RpcTraceContext(),
            InputData = { new ParameterBinding { Name = bindingName, Data = new TypedData { Http = new RpcHttp() } } },
        };

        // What the forwarder reads of the client's body is counted, to tell chunk framing from data if the host refuses it.
        var body = new CountingRequestBody(context.Request.Body);
        context.Request.Body = body;

        // The forward starts first, as in the host, so the worker's HTTP side is under way when the invocation arrives.
        var forward = forwarder.SendAsync(context, channel.HttpUri.ToString(), _invoker, Config).AsTask();
        var invocation = InvokeAsync(channel, request, context.RequestAborted);
        var error = await forward.ConfigureAwait(false);
        if (error != ForwarderError.None)
        {
            // Answered without waiting for the invocation: when the body never reached the worker, its InvocationResponse
            // comes only when the worker gives up waiting for the HTTP request.
            _ = invocation;
            if (context.RequestAborted.IsCancellationRequested)
            {
                return;
            }

            var exception = context.Features.Get<IForwarderErrorFeature>()?.Exception;
            if (error == ForwarderError.RequestBodyClient && ClientRefusal(exception) is { } refusal)
            {
                // The client's body broke this host's own Kestrel limits (FUNCTIONS_REQUEST_BODY_SIZE_LIMIT: 413, its minimum
                // data rate: 408, bad framing or a body shorter than its Content-Length: 400): the client's fault, answered
                // with Kestrel's status as the host's forwarder (YARP) sets it, never 502 (which says the worker failed).
                var answer = Describe(context, refusal, body.BytesRead);
                Console.WriteLine($"WorkerHost: {functionName} ({invocationId}): the client's request body was refused: {refusal.StatusCode} {answer}");
                if (!context.Response.HasStarted)
                {
                    await FailAsync(context, refusal.StatusCode, answer).ConfigureAwait(false);
                }

                return;
            }

            Console.WriteLine($"WorkerHost: {functionName} ({invocationId}): forwarding to the worker failed: {error} {exception?.Message}");
            if (!context.Response.HasStarted)
            {
                await FailAsync(context, StatusCodes.Status502BadGateway, $"The worker could not be reached ({error}).").ConfigureAwait(false);
            }

            return;
        }

        var (succeeded, reason) = await invocation.ConfigureAwait(false);
        if (!succeeded)
        {
            Console.WriteLine($"WorkerHost: {functionName} ({invocationId}) failed: {reason}");
            if (!context.Response.HasStarted)
            {
                await FailAsync(context, StatusCodes.Status500InternalServerError, "The function failed.").ConfigureAwait(false);
            }
        }
    }

    private static async Task<(bool Succeeded, string? Reason)> InvokeAsync(WorkerChannel channel, InvocationRequest request, CancellationToken cancellationToken)
    {
        try
        {
            var response = await channel.InvokeAsync(request, cancellationToken).ConfigureAwait(false);
            return response.Result?.Status == StatusResult.Types.Status.Success
                ? (true, null)
                : (false, $"{response.Result?.Status}: {response.Result?.Exception?.Message}");
        }
        catch (Exception e) when (e is WorkerUnavailableException or OperationCanceledException)
        {
            return (false, e.Message);
        }
    }

    /// <summary>
    /// The answer to a refused body. Kestrel counts a chunked body's chunk-size lines, their line ends and chunk
    /// extensions against FUNCTIONS_REQUEST_BODY_SIZE_LIMIT with the data, and its refusal says only "too large"; when
    /// what it must have counted beyond the data read (less what may still sit in its buffer) is more than the data, the
    /// framing (a long chunk extension, or chunks of a few bytes) is what was too large, and the answer says so.
    /// </summary>
    private string Describe(HttpContext context, BadHttpRequestException refusal, long dataRead)
    {
        var limit = context.Features.Get<IHttpMaxRequestBodySizeFeature>()?.MaxRequestBodySize;
        if (refusal.StatusCode != StatusCodes.Status413PayloadTooLarge || context.Request.ContentLength is not null || limit is null)
        {
            return $"The request body was refused by the host: {refusal.Message}";
        }

        var framing = limit.Value + 1 - dataRead - _unreadBytes;
        return framing > dataRead
            ? $"The chunked framing is too large: the host's limit of {limit} bytes (FUNCTIONS_REQUEST_BODY_SIZE_LIMIT) counts chunk-size lines and chunk extensions with the data, and it was passed when {dataRead} bytes of data had arrived: at least {framing} of the bytes it counted were framing (a chunk extension, or chunks of a few bytes each). Nothing was signed."
            : $"The request body was refused by the host: {refusal.Message} (FUNCTIONS_REQUEST_BODY_SIZE_LIMIT, which counts a chunked body's framing with its data; {dataRead} bytes of data had arrived.)";
    }

    // Kestrel's refusal of the client's body, wherever YARP wrapped it (an AggregateException of the copy and the send).
    private static BadHttpRequestException? ClientRefusal(Exception? exception) => exception switch
    {
        null => null,
        BadHttpRequestException { StatusCode: >= 400 and < 500 } refusal => refusal,
        AggregateException aggregate => aggregate.InnerExceptions.Select(ClientRefusal).FirstOrDefault(r => r is not null),
        _ => ClientRefusal(exception.InnerException),
    };

    private static async Task FailAsync(HttpContext context, int status, string message)
    {
        context.Response.Clear();
        context.Response.StatusCode = status;
        context.Response.ContentType = "text/plain; charset=utf-8";
        await context.Response.WriteAsync(message, context.RequestAborted).ConfigureAwait(false);
    }
}
