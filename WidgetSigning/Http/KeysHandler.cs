using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using WidgetSigning.Keys;

namespace WidgetSigning.Http;

/// <summary>
/// <c>GET /api/keys</c>, whatever the host: the key ids and states a receiver may meet (never key material). Each
/// host's function is a one-line adapter.
/// </summary>
public sealed class KeysHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "Keys";

    private readonly ISigningKeySource _keys;
    private readonly ILogger<KeysHandler> _logger;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    public KeysHandler(ISigningKeySource keys, ILogger<KeysHandler> logger)
    {
        _keys = keys;
        _logger = logger;
    }

    /// <summary>Lists the keys; a vault outage is a problem result, never an exception.</summary>
    public async Task<IActionResult> HandleAsync(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var cancellationToken = request.HttpContext.RequestAborted;
        try
        {
            return new KeyListResult(await _keys.DescribeKeysAsync(cancellationToken).ConfigureAwait(false));
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, cancellationToken, out var problem))
        {
            HttpLog.Rejected(_logger, FunctionName, problem.Status, problem.Type, problem.JsonPath);
            return problem;
        }
    }
}
