using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using WidgetSigning.Http;

namespace FunctionApp.Functions;

/// <summary>The in-process adapter of <c>POST /api/verify</c>; the work is the core's <see cref="VerifyHandler"/>.</summary>
public sealed class VerifyFunction(VerifyHandler handler)
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = VerifyHandler.FunctionName;

    /// <summary>The HTTP trigger.</summary>
    [FunctionName(Name)]
    public Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "verify")] HttpRequest request) => handler.HandleAsync(request);
}
