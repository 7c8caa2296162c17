using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using Newtonsoft.Json;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;
using WidgetSigning.Telemetry;

namespace WidgetSigning.Http;

/// <summary>
/// <c>GET /api/receivers/{receiver}/jwks</c>, whatever the host: an Ed25519 receiver's public keys as a JWK Set (RFC
/// 8037), current, staged and retiring, so the receiver checks <c>v1a</c> signatures without holding any secret. Anonymous
/// (docs/api.md says why), so it must not tell receivers from names: only an Ed25519 receiver loaded here is answered
/// without a lookup; every other id (an HMAC receiver loaded or not, an unknown one) costs one token of a small lookup
/// bucket of its own, and gets the same name-free 404, or the same 429 when the bucket is empty. That bucket is not
/// signing's, so anonymous requests cannot spend Key Vault lookups meant for signing. Cacheable: <c>ETag</c>, and
/// <c>Cache-Control: max-age</c> of one <c>KeyVault:RefreshInterval</c>.
/// </summary>
public sealed class PublicKeysHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "PublicKeys";

    /// <summary>The route under <c>/api</c>.</summary>
    public const string Route = "receivers/{receiver}/jwks";

    /// <summary>Lookups of ids without an Ed25519 key set loaded here, per second per instance, that this endpoint may make.</summary>
    public const int MaxLookupsPerSecond = 1;

    private readonly IReceiverKeySource _keys;
    private readonly TimeProvider _time;
    private readonly ILogger<PublicKeysHandler> _logger;
    private readonly SigningMetrics _metrics;
    private readonly string _cacheControl;
    private readonly LookupTokenBucket _lookups;
    private readonly object _gate = new();

    /// <summary>Creates the handler (a singleton in DI); sets are cached by receivers for <paramref name="maxAge"/>.</summary>
    internal PublicKeysHandler(IReceiverKeySource keys, TimeSpan maxAge, TimeProvider time, SigningMetrics metrics, ILogger<PublicKeysHandler> logger)
    {
        _keys = keys;
        _time = time;
        _metrics = metrics;
        _logger = logger;
        _cacheControl = $"public, max-age={(long)maxAge.TotalSeconds}";
        _lookups = new LookupTokenBucket(MaxLookupsPerSecond, time.GetUtcNow());
    }

    /// <summary>
    /// Answers the set of the receiver the path names (<c>…/receivers/{receiver}/jwks</c>, read from the path itself, so
    /// every host answers alike whatever route binding it offers); any refusal is a problem result.
    /// </summary>
    public async Task<IActionResult> HandleAsync(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var receiver = ReceiverInPath(request.Path.Value);
        using var span = WidgetSigningTelemetry.Source.StartActivity(WidgetSigningTelemetry.PublicKeysSpan);
        try
        {
            if (!ReceiverId.TryParse(receiver, out var id))
            {
                throw Problems.InvalidRequest($"The path does not name a receiver: a receiver id is {ReceiverId.Rule}.");
            }

            var body = Write(_keys.DescribeLoadedKeys(id)) ?? await LookUpAsync(id, request.HttpContext.RequestAborted).ConfigureAwait(false);
            var etag = ETagOf(body);
            return new PublicKeySetResult(body, etag, _cacheControl, Matches(request, etag));
        }
        catch (Exception ex) when (ProblemMapper.TryMap(ex, request.HttpContext.RequestAborted, out var problem))
        {
            HttpLog.Rejected(_logger, FunctionName, problem.Status, problem.Type, problem.JsonPath);
            _metrics.Refused(WidgetSigningTelemetry.HttpSource, problem.Type);
            span?.SetStatus(System.Diagnostics.ActivityStatusCode.Error, SigningMetrics.ShortName(problem.Type));
            return problem;
        }
    }

    // The segment before the last one ("jwks"); null when the path has no such shape. Bounded by the host's URL limit.
    private static string? ReceiverInPath(string? path)
    {
        if (path is null || !path.EndsWith("/jwks", StringComparison.Ordinal))
        {
            return null;
        }

        var rest = path.AsSpan(0, path.Length - "/jwks".Length);
        var slash = rest.LastIndexOf('/');
        return slash < 0 ? null : rest[(slash + 1)..].ToString();
    }

    // Every id without an Ed25519 set loaded here comes this way, loaded or not, so an HMAC receiver and an unknown id spend
    // the bucket alike and get the same bytes: no answer from here names the receiver.
    private async ValueTask<byte[]> LookUpAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        bool allowed;
        TimeSpan retryAfter;
        lock (_gate)
        {
            allowed = _lookups.TryTake(_time.GetUtcNow(), out retryAfter);
        }

        if (!allowed)
        {
            throw Problems.ReceiverLookupsLimited(
                $"Key set requests for receivers without a key set loaded on this instance are limited to {MaxLookupsPerSecond} per second.", retryAfter);
        }

        IReadOnlyList<KeyDescription> keys;
        try
        {
            keys = await _keys.DescribeKeysOnOwnBudgetAsync(receiver, cancellationToken).ConfigureAwait(false);
        }
        catch (ProblemException e) when (e.Is(Problems.Types.UnknownReceiver))
        {
            throw Problems.NoPublicKeySet();
        }
        catch (ProblemException e) when (e.Is(Problems.Types.KeyUnavailable))
        {
            // Without a receiver the answer's detail is the fixed one: the source's message (naming the receiver and its
            // secret) stays in the log.
            throw Problems.KeyUnavailable(e.Message, e.Problem.RetryAfter, receiver: null, e);
        }

        return Write(keys) ?? throw Problems.NoPublicKeySet();
    }

    // Null when no key of the receiver has an Ed25519 part (or nothing is loaded): the same answer as an unknown receiver.
    private static byte[]? Write(IReadOnlyList<KeyDescription>? keys)
    {
        if (keys is null || !keys.Any(k => k.PublicKey is not null))
        {
            return null;
        }

        using var text = new StringWriter(CultureInfo.InvariantCulture);
        using (var json = new JsonTextWriter(text) { Formatting = Formatting.None })
        {
            json.WriteStartObject();
            json.WritePropertyName("keys");
            json.WriteStartArray();
            foreach (var key in keys)
            {
                if (key.PublicKey is { } publicKey)
                {
                    PublicKeyJwk.Write(json, key, publicKey);
                }
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        return Encoding.UTF8.GetBytes(text.ToString());
    }

    // A strong validator of the bytes: the set changes exactly when its bytes do.
    private static string ETagOf(byte[] body)
    {
        Span<byte> hash = stackalloc byte[32];
        SHA256.HashData(body, hash);
        return "\"" + Convert.ToHexString(hash[..16]).ToLowerInvariant() + "\"";
    }

    private static bool Matches(HttpRequest request, string etag)
    {
        foreach (var value in request.Headers.IfNoneMatch)
        {
            // Bounded: a header longer than any list of our tags is not read.
            if (value is { Length: <= 1024 } && value.Split(',').Any(v => v.Trim() == etag || v.Trim() == "*"))
            {
                return true;
            }
        }

        return false;
    }
}
