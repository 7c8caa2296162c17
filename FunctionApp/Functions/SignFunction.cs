using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using WidgetSigning.Http;

namespace FunctionApp.Functions;

/// <summary>The in-process adapter of <c>POST /api/sign</c>; the work is the core's <see cref="SignHandler"/>.</summary>
public sealed class SignFunction(SignHandler handler)
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = SignHandler.FunctionName;

    /// <summary>The HTTP trigger.</summary>
    [FunctionName(Name)]
    public Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "sign")] HttpRequest request) => handler.HandleAsync(request);
}
