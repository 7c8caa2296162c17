using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using WidgetSigning.Http;

namespace FunctionApp.Functions;

/// <summary>The in-process adapter of <c>GET /api/receivers/{receiver}/jwks</c>; the work is the core's <see cref="PublicKeysHandler"/>.</summary>
public sealed class PublicKeysFunction(PublicKeysHandler handler)
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = PublicKeysHandler.FunctionName;

    /// <summary>The HTTP trigger: anonymous, public keys only.</summary>
    [FunctionName(Name)]
    public Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Anonymous, "get", Route = PublicKeysHandler.Route)] HttpRequest request) => handler.HandleAsync(request);
}
