using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;

namespace LocalHost;

/// <summary>
/// What a route of the HTTP extension's <see cref="WebJobsRouter"/> runs: calls the function with the request bound to
/// its trigger parameter and executes the <see cref="IActionResult"/> it returned (the host's ScriptRouteHandler and
/// FunctionInvocationMiddleware, azure-functions-host src/WebJobs.Script.WebHost, in one step).
/// </summary>
internal sealed class FunctionRouteHandler(IJobHost jobHost, IReadOnlyDictionary<string, string> triggerParameters) : IWebJobsRouteHandler
{
    public async Task InvokeAsync(HttpContext context, string functionName)
    {
        var arguments = new Dictionary<string, object?> { [triggerParameters[functionName]] = context.Request };
        await jobHost.CallAsync(functionName, arguments, context.RequestAborted).ConfigureAwait(false);
        var result = FunctionsHostFactory.TakeResponse(context) as IActionResult ?? new OkResult();
        if (!context.Response.HasStarted)
        {
            await result.ExecuteResultAsync(new ActionContext(context, context.GetRouteData(), new ActionDescriptor())).ConfigureAwait(false);
        }
    }
}
