using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Protocols;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using Microsoft.IdentityModel.Tokens;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// Validates Microsoft Entra access tokens with <see cref="JsonWebTokenHandler"/> against the authority's OpenID
/// configuration (<see cref="ConfigurationManager{T}"/>: fetched on first use, refreshed every
/// <see cref="AutomaticRefreshInterval"/>, and on a token whose key is unknown at most once per
/// <see cref="RefreshInterval"/>, so a flood of unknown <c>kid</c>s costs at most one fetch per interval). Rules: RS256
/// only, <c>typ</c> JWT, signature by one of the issuer's keys, issuer of the tenant, audience the app's client id or
/// Application ID URI, <c>exp</c> required and <c>exp</c>/<c>nbf</c> within <see cref="AuthOptions.ClockSkew"/>,
/// <c>tid</c> the tenant and an <c>oid</c>. A token once valid is remembered until its <c>exp</c>, at most 5 minutes
/// (<see cref="ValidatedTokenCache"/>).
/// </summary>
public sealed class EntraTokenValidator : ITokenValidator, IDisposable
{
    /// <summary>How often the issuer's configuration and keys are fetched again (Microsoft.IdentityModel's default).</summary>
    public static readonly TimeSpan AutomaticRefreshInterval = TimeSpan.FromHours(12);

    /// <summary>The least time between two fetches caused by a token with an unknown key.</summary>
    public static readonly TimeSpan RefreshInterval = TimeSpan.FromMinutes(5);

    private readonly JsonWebTokenHandler _handler = new() { MaximumTokenSizeInBytes = AuthOptions.MaxAuthorizationLength };
    private readonly HttpClient _http;
    private readonly TokenValidationParameters _parameters;
    private readonly AuthOptions _options;
    private readonly string _authority;
    private readonly ILogger<EntraTokenValidator> _logger;
    private readonly ValidatedTokenCache _validated;

    /// <summary>Creates the validator (a singleton in DI) for the options' authority and audiences.</summary>
    public EntraTokenValidator(IOptions<AuthOptions> options, ILogger<EntraTokenValidator> logger, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options.Value;
        _logger = logger;
        _validated = new ValidatedTokenCache(time ?? TimeProvider.System);
        _authority = _options.EffectiveAuthority ?? throw new InvalidOperationException($"{AuthOptions.SectionName}:{nameof(AuthOptions.TenantId)} is not set.");
        var metadata = new Uri(_authority + "/.well-known/openid-configuration");
        _http = new HttpClient { Timeout = TimeSpan.FromSeconds(10), MaxResponseContentBufferSize = 1024 * 1024 };
        var retriever = new HttpDocumentRetriever(_http) { RequireHttps = !metadata.IsLoopback };
        var configuration = new ConfigurationManager<OpenIdConnectConfiguration>(metadata.AbsoluteUri, new OpenIdConnectConfigurationRetriever(), retriever)
        {
            AutomaticRefreshInterval = AutomaticRefreshInterval,
            RefreshInterval = RefreshInterval,
        };

        List<string> issuers = [_authority];
        if (_options.IsEntraAuthority)
        {
            // v1 tokens (an app registration that has not asked for v2) name the tenant's older issuer.
            issuers.Add($"https://sts.windows.net/{_options.TenantId}/");
        }

        _parameters = new TokenValidationParameters
        {
            ConfigurationManager = configuration,
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

        var result = await _handler.ValidateTokenAsync(token, _parameters).ConfigureAwait(false);
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
            throw new TokenRejectedException("The token is not from the accepted tenant (tid).");
        }

        _validated.Add(key, caller, new DateTimeOffset(result.SecurityToken.ValidTo, TimeSpan.Zero));
        return caller;
    }

    /// <inheritdoc />
    public void Dispose() => _http.Dispose();

    // Fixed words for each rule a token broke: never the library's message, which may quote the token.
    private Exception Rejection(Exception? exception) => exception switch
    {
        SecurityTokenExpiredException => new TokenRejectedException("The token has expired."),
        SecurityTokenNotYetValidException => new TokenRejectedException("The token is not valid yet (nbf)."),
        SecurityTokenNoExpirationException => new TokenRejectedException("The token has no expiry (exp)."),
        SecurityTokenInvalidLifetimeException => new TokenRejectedException("The token's lifetime is not valid."),
        SecurityTokenInvalidAudienceException => new TokenRejectedException("The token is not for this app (aud)."),
        SecurityTokenInvalidIssuerException => new TokenRejectedException("The token is not from the accepted issuer (iss)."),
        SecurityTokenInvalidTypeException => new TokenRejectedException("The token is not an access token of the accepted type (typ)."),
        SecurityTokenInvalidAlgorithmException => new TokenRejectedException("The token's signing algorithm is not accepted (RS256 only)."),
        SecurityTokenSignatureKeyNotFoundException => new TokenRejectedException("The token's signing key is not one of the issuer's (kid)."),
        SecurityTokenInvalidSignatureException => new TokenRejectedException("The token's signature is not valid."),
        SecurityTokenMalformedException or ArgumentException => new TokenRejectedException("The token is malformed."),
        SecurityTokenException => new TokenRejectedException("The token is not valid."),
        _ => Unavailable(exception),
    };

    private TokenValidationUnavailableException Unavailable(Exception? exception)
    {
        CallersLog.MetadataUnavailable(_logger, exception ?? new InvalidOperationException("No reason given."), _authority);
        return new TokenValidationUnavailableException("The token issuer's signing keys could not be obtained; try again later.");
    }
}
