using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using WidgetSigning.Http;

namespace FunctionApp.Functions;

/// <summary>The in-process adapter of <c>GET /api/keys</c>; the work is the core's <see cref="KeysHandler"/>.</summary>
public sealed class KeysFunction(KeysHandler handler)
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = KeysHandler.FunctionName;

    /// <summary>The HTTP trigger.</summary>
    [FunctionName(Name)]
    public Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "keys")] HttpRequest request) => handler.HandleAsync(request);
}
