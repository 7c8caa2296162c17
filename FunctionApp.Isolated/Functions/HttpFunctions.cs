using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.Functions.Worker;
using WidgetSigning.Http;

namespace FunctionApp.Isolated.Functions;

/// <summary>
/// The isolated worker's HTTP adapters, through the ASP.NET Core integration: the request is the worker's own Kestrel
/// request, so its body is read as a stream into the pool, never bound to a string. The work is the core's handlers.
/// </summary>
public sealed class HttpFunctions(SignHandler sign, VerifyHandler verify, KeysHandler keys, PublicKeysHandler publicKeys)
{
    /// <summary><c>POST /api/sign</c> (<see cref="SignHandler"/>).</summary>
    [Function(SignHandler.FunctionName)]
    public Task<IActionResult> SignAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "sign")] HttpRequest request) => sign.HandleAsync(request);

    /// <summary><c>POST /api/verify</c> (<see cref="VerifyHandler"/>).</summary>
    [Function(VerifyHandler.FunctionName)]
    public Task<IActionResult> VerifyAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "verify")] HttpRequest request) => verify.HandleAsync(request);

    /// <summary><c>GET /api/keys</c> (<see cref="KeysHandler"/>).</summary>
    [Function(KeysHandler.FunctionName)]
    public Task<IActionResult> KeysAsync(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "keys")] HttpRequest request) => keys.HandleAsync(request);

    /// <summary><c>GET /api/receivers/{receiver}/jwks</c> (<see cref="PublicKeysHandler"/>): anonymous, public keys only.</summary>
    [Function(PublicKeysHandler.FunctionName)]
    public Task<IActionResult> PublicKeysAsync(
        [HttpTrigger(AuthorizationLevel.Anonymous, "get", Route = PublicKeysHandler.Route)] HttpRequest request) => publicKeys.HandleAsync(request);
}
