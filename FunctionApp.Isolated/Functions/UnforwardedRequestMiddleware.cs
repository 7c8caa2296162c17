using Microsoft.Azure.Functions.Worker;
using Microsoft.Azure.Functions.Worker.Middleware;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Isolated.Functions;

/// <summary>
/// An HTTP invocation whose request never reaches the worker: the client left before the host forwarded it (a body
/// shorter than its Content-Length, then a half-close), or the host could not forward it (a header value that is not
/// ASCII). The ASP.NET Core integration waits for the request (15 s for the start, 5 s for the request) and throws a
/// <see cref="TimeoutException"/>, or an <see cref="OperationCanceledException"/> when the host cancels the invocation;
/// the worker would log that at Error with a stack trace. It is the client's doing and nothing ran, so this logs one
/// Warning and ends the invocation; the host has already answered the client. Registered before the integration's
/// middleware, so it sees what that middleware throws; anything thrown once the request is paired (the function ran)
/// passes through unchanged.
/// </summary>
internal sealed class UnforwardedRequestMiddleware(ILogger<UnforwardedRequestMiddleware> logger) : IFunctionsWorkerMiddleware
{
    /// <inheritdoc />
    public async Task Invoke(FunctionContext context, FunctionExecutionDelegate next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        try
        {
            await next(context).ConfigureAwait(false);
        }
        catch (Exception e) when (e is TimeoutException or OperationCanceledException && IsHttpTrigger(context) && context.GetHttpContext() is null)
        {
            InvocationLog.RequestNeverForwarded(logger, context.FunctionDefinition.Name, context.InvocationId, e is TimeoutException ? "timed out" : "was cancelled");
        }
    }

    private static bool IsHttpTrigger(FunctionContext context) =>
        context.FunctionDefinition.InputBindings.Values.Any(b => b.Type.Equals("httpTrigger", StringComparison.OrdinalIgnoreCase));
}
