using FunctionApp.Http;
using FunctionApp.Keys;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions;

/// <summary><c>GET /api/keys</c>: the key ids with their state (current, staged, retiring) and <c>nbf</c>/<c>exp</c>; never key material.</summary>
public sealed class KeysFunction
{
    /// <summary>The function's name in the host.</summary>
    public const string Name = "Keys";

    private readonly ISigningKeySource _keys;
    private readonly ILogger<KeysFunction> _logger;

    /// <summary>Creates the function; the host resolves it from DI.</summary>
    public KeysFunction(ISigningKeySource keys, ILogger<KeysFunction> logger)
    {
        _keys = keys;
        _logger = logger;
    }

    /// <summary>The HTTP trigger.</summary>
    [FunctionName(Name)]
    public async Task<IActionResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "keys")] HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;
        try
        {
            return new KeyListResult(await _keys.DescribeKeysAsync(cancellationToken).ConfigureAwait(false));
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, cancellationToken, out var problem))
        {
            HttpLog.Rejected(_logger, Name, problem.Status, problem.Type, problem.JsonPath);
            return problem;
        }
    }
}
