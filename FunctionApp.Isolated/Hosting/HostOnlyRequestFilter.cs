using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Logging;
using WidgetSigning.Http;

namespace FunctionApp.Isolated.Hosting;

/// <summary>
/// The worker's Kestrel serves only the Functions host, which sends each request with the invocation id it pairs with
/// (<c>x-ms-invocation-id</c>, a GUID). The ASP.NET Core integration throws for a request without one (a 500 and an
/// Error with a stack trace for anyone on the machine) and, for an id that no invocation has, waits five seconds and
/// throws a <see cref="TimeoutException"/>. This runs first, before the integration's middleware: such a request is a
/// 400 naming nothing internal, logged once at Warning.
/// </summary>
internal sealed class HostOnlyRequestFilter(ILogger<HostOnlyRequestFilter> logger) : IStartupFilter
{
    /// <summary>The header the host adds to each forwarded request (DefaultHttpProxyService; the integration's correlation header).</summary>
    public const string InvocationIdHeader = "x-ms-invocation-id";

    /// <inheritdoc />
    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        app.Use(RefuseUnpairedAsync);
        next(app);
    };

    private async Task RefuseUnpairedAsync(HttpContext context, RequestDelegate next)
    {
        var ids = context.Request.Headers[InvocationIdHeader];
        if (ids.Count != 1 || !Guid.TryParse(ids[0], out _))
        {
            HostingLog.RequestWithoutInvocation(logger, context.Request.Method, context.Connection.RemoteIpAddress?.ToString() ?? "unknown");
            await RefuseAsync(context, "This endpoint serves only the Functions host; send the request to the function app's address.").ConfigureAwait(false);
            return;
        }

        try
        {
            await next(context).ConfigureAwait(false);
        }
        catch (TimeoutException) when (!context.Response.HasStarted && !context.RequestAborted.IsCancellationRequested)
        {
            // The integration found no invocation with this id within its wait: the id was not the host's (the host keeps
            // a client's own header of that name), so nothing ran and nothing was signed.
            HostingLog.RequestMatchedNoInvocation(logger, context.Request.Method, context.Connection.RemoteIpAddress?.ToString() ?? "unknown");
            await RefuseAsync(context, "The request carried an invocation id that matches no function invocation; send it without one. Nothing was run.").ConfigureAwait(false);
        }
    }

    private static Task RefuseAsync(HttpContext context, string detail)
    {
        context.Response.Clear();
        var problem = new ProblemResult(StatusCodes.Status400BadRequest, ProblemTypes.InvalidRequest, "The request is invalid.", detail);
        return problem.ExecuteResultAsync(new ActionContext(context, context.GetRouteData(), new ActionDescriptor()));
    }
}
