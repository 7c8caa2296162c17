using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using Microsoft.IdentityModel.Tokens;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// Validates Microsoft Entra access tokens with <see cref="JsonWebTokenHandler"/> against the keys of the authority's
/// OpenID configuration (<see cref="IssuerKeys"/>: fetched on first use, again every <see cref="AutomaticRefreshInterval"/>,
/// and on a token whose key is unknown at most once per <see cref="RefreshInterval"/>; one fetch at a time). An issuer
/// that cannot be reached is a 503 (<see cref="Problems.Types.AuthUnavailable"/>), never a rejected token: a caller
/// waits for a fetch at most <see cref="MaxWait"/>, and a failure is remembered for <see cref="FailureWindow"/>, during
/// which nothing is fetched. Rules: RS256 only, <c>typ</c> JWT, signature by one of the issuer's keys, issuer of the
/// tenant, audience the app's client id or Application ID URI, <c>exp</c> required and <c>exp</c>/<c>nbf</c> within
/// <see cref="AuthOptions.ClockSkew"/>, <c>tid</c> the tenant and an <c>oid</c>; each claim read once, of the JSON type
/// Entra issues, and no <c>crit</c> header (<see cref="TokenShape"/>, checked before the signature). A token once valid is remembered until
/// its <c>exp</c>, at most 5 minutes (<see cref="ValidatedTokenCache"/>).
/// </summary>
public sealed class EntraTokenValidator : ITokenValidator, IDisposable
{
    /// <summary>How often the issuer's configuration and keys are fetched again (Microsoft.IdentityModel's default).</summary>
    public static readonly TimeSpan AutomaticRefreshInterval = TimeSpan.FromHours(12);

    /// <summary>The least time between a fetch and one caused by a token with an unknown key.</summary>
    public static readonly TimeSpan RefreshInterval = TimeSpan.FromMinutes(5);

    /// <summary>
    /// How long a failed fetch of the issuer's configuration is remembered: meanwhile nothing is fetched, and a call that
    /// needs the issuer is answered 503 at once with this as <c>Retry-After</c>. So no client makes the app fetch more
    /// often than once per window.
    /// </summary>
    public static readonly TimeSpan FailureWindow = TimeSpan.FromSeconds(5);

    /// <summary>
    /// The longest a call waits for a fetch of the issuer's configuration before it is answered 503; the fetch goes on
    /// in the background, bounded by its own HTTP timeout, and the wait counts as a failure (<see cref="FailureWindow"/>).
    /// </summary>
    public static readonly TimeSpan MaxWait = TimeSpan.FromSeconds(2);

    private readonly JsonWebTokenHandler _handler = new() { MaximumTokenSizeInBytes = AuthOptions.MaxAuthorizationLength };
    private readonly HttpClient _http;
    private readonly IssuerKeys _keys;
    private readonly TokenValidationParameters _parameters;
    private readonly AuthOptions _options;
    private readonly ValidatedTokenCache _validated;
    private KeyedParameters? _keyed;

    /// <summary>Creates the validator (a singleton in DI) for the options' authority and audiences.</summary>
    public EntraTokenValidator(IOptions<AuthOptions> options, ILogger<EntraTokenValidator> logger, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options.Value;
        time ??= TimeProvider.System;
        _validated = new ValidatedTokenCache(time);
        var authority = _options.EffectiveAuthority ?? throw new InvalidOperationException($"{AuthOptions.SectionName}:{nameof(AuthOptions.TenantId)} is not set.");
        _http = new HttpClient { Timeout = TimeSpan.FromSeconds(10), MaxResponseContentBufferSize = 1024 * 1024 };
        _keys = new IssuerKeys(authority, new IssuerDocumentRetriever(_http), time, logger);

        List<string> issuers = [authority];
        if (_options.IsEntraAuthority)
        {
            // v1 tokens (an app registration that has not asked for v2) name the tenant's older issuer.
            issuers.Add($"https://sts.windows.net/{_options.TenantId}/");
        }

        _parameters = new TokenValidationParameters
        {
            ValidIssuers = issuers,
            ValidAudiences = _options.Audiences,
            ValidTypes = ["JWT"],
            ValidAlgorithms = [SecurityAlgorithms.RsaSha256],
            ClockSkew = _options.ClockSkew,
            RequireSignedTokens = true,
            RequireExpirationTime = true,
            ValidateLifetime = true,
            ValidateIssuer = true,
            ValidateAudience = true,
            TryAllIssuerSigningKeys = false,
        };
    }

    /// <inheritdoc />
    public async ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(token);
        if (_validated.TryGet(token, out var key, out var known))
        {
            return known!;
        }

        TokenShape.Check(token);
        var configuration = await _keys.CurrentAsync(cancellationToken).ConfigureAwait(false);
        var result = await _handler.ValidateTokenAsync(token, ParametersFor(configuration)).ConfigureAwait(false);
        if (result.Exception is SecurityTokenSignatureKeyNotFoundException
            && await _keys.RefreshAsync(configuration, cancellationToken).ConfigureAwait(false) is { } newer)
        {
            result = await _handler.ValidateTokenAsync(token, ParametersFor(newer)).ConfigureAwait(false);
        }

        if (!result.IsValid)
        {
            throw Rejection(result.Exception);
        }

        var identity = result.ClaimsIdentity;
        var caller = CallerIdentity.FromClaims(
            identity.FindFirst("oid")?.Value,
            identity.FindFirst("tid")?.Value,
            identity.FindFirst("azp")?.Value ?? identity.FindFirst("appid")?.Value,
            identity.FindAll("roles").Select(c => c.Value));
        if (!string.Equals(caller.TenantId, _options.TenantId, StringComparison.OrdinalIgnoreCase))
        {
            throw Problems.Unauthenticated("The token is not from the accepted tenant (tid).");
        }

        _validated.Add(key, caller, new DateTimeOffset(result.SecurityToken.ValidTo, TimeSpan.Zero));
        return caller;
    }

    /// <summary>Starts fetching the issuer's keys in the background (the host calls it at start), never waiting or throwing.</summary>
    public void Prefetch() => _keys.Prefetch();

    /// <inheritdoc />
    public void Dispose()
    {
        _keys.Dispose();
        _http.Dispose();
    }

    // Fixed words for each rule a token broke: never the library's message, which may quote the token.
    private static ProblemException Rejection(Exception? exception) => exception switch
    {
        SecurityTokenExpiredException => Problems.Unauthenticated("The token has expired."),
        SecurityTokenNotYetValidException => Problems.Unauthenticated("The token is not valid yet (nbf)."),
        SecurityTokenNoExpirationException => Problems.Unauthenticated("The token has no expiry (exp)."),
        SecurityTokenInvalidLifetimeException => Problems.Unauthenticated("The token's lifetime is not valid."),
        SecurityTokenInvalidAudienceException => Problems.Unauthenticated("The token is not for this app (aud)."),
        SecurityTokenInvalidIssuerException => Problems.Unauthenticated("The token is not from the accepted issuer (iss)."),
        SecurityTokenInvalidTypeException => Problems.Unauthenticated("The token is not an access token of the accepted type (typ)."),
        SecurityTokenInvalidAlgorithmException => Problems.Unauthenticated("The token's signing algorithm is not accepted (RS256 only)."),
        SecurityTokenSignatureKeyNotFoundException => Problems.Unauthenticated("The token's signing key is not one of the issuer's (kid)."),
        SecurityTokenInvalidSignatureException => Problems.Unauthenticated("The token's signature is not valid."),
        SecurityTokenMalformedException or ArgumentException => Problems.Unauthenticated("The token is malformed."),
        _ => Problems.Unauthenticated("The token is not valid."),
    };

    // The rules with the keys of one configuration, built once per configuration fetched.
    private TokenValidationParameters ParametersFor(OpenIdConnectConfiguration configuration)
    {
        var keyed = Volatile.Read(ref _keyed);
        if (keyed is null || !ReferenceEquals(keyed.Configuration, configuration))
        {
            var parameters = _parameters.Clone();
            parameters.IssuerSigningKeys = configuration.SigningKeys;
            keyed = new KeyedParameters(configuration, parameters);
            Volatile.Write(ref _keyed, keyed);
        }

        return keyed.Parameters;
    }

    private sealed record KeyedParameters(OpenIdConnectConfiguration Configuration, TokenValidationParameters Parameters);
}
