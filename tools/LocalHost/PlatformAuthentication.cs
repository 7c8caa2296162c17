using System.Security.Claims;
using System.Text.Json;
using Microsoft.AspNetCore.Http;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Protocols;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using Microsoft.IdentityModel.Tokens;

namespace LocalHost;

/// <summary>
/// <c>--platform-auth</c>: plays App Service Authentication's part in front of the in-process app, as infra/ configures it
/// (authsettingsV2: Entra v2 issuer, the app registration's audiences, <c>requireAuthentication</c>, <c>Return401</c>).
/// Every <c>X-MS-CLIENT-PRINCIPAL*</c> header a client sent is removed; a request without a valid bearer token from the
/// authority (the local issuer) is answered 401 here and never reaches the app; a valid one reaches it with the
/// principal the platform passes: base64 JSON <c>{auth_typ: "aad", claims: [{typ, val}], name_typ, role_typ}</c>, the
/// token's claims under the platform's default claim mapping (oid and tid in their long forms; roles unmapped, as the
/// platform passes a v2 token's: AzureAD/microsoft-identity-web pull request 2166). The app gets
/// <c>WEBSITE_AUTH_ENABLED=True</c> and <c>Auth:PlatformAuthentication=true</c>, as the platform and infra/ set them.
/// </summary>
internal sealed class PlatformAuthentication
{
    private const string PrincipalHeader = "X-MS-CLIENT-PRINCIPAL";
    private const string ExcludedPath = "/api/receivers";
    private const string RoleLong = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role";

    private static readonly Dictionary<string, string> Mapped = new(StringComparer.Ordinal)
    {
        ["oid"] = "http://schemas.microsoft.com/identity/claims/objectidentifier",
        ["tid"] = "http://schemas.microsoft.com/identity/claims/tenantid",
        ["scp"] = "http://schemas.microsoft.com/identity/claims/scope",
        ["sub"] = ClaimTypes.NameIdentifier,
    };

    private readonly ConfigurationManager<OpenIdConnectConfiguration> _metadata;
    private readonly string[] _audiences;
    private readonly JsonWebTokenHandler _handler = new() { MapInboundClaims = false };

    private PlatformAuthentication(string authority, string[] audiences)
    {
        _audiences = audiences;
        _metadata = new ConfigurationManager<OpenIdConnectConfiguration>(
            authority.TrimEnd('/') + "/.well-known/openid-configuration",
            new OpenIdConnectConfigurationRetriever(),
            new HttpDocumentRetriever { RequireHttps = !new Uri(authority).IsLoopback });
    }

    /// <summary>The settings the platform's part needs (Auth:Authority, Auth:Audience), or why it cannot start.</summary>
    public static PlatformAuthentication Create(IDictionary<string, string?> settings)
    {
        var authority = settings.TryGetValue("Auth:Authority", out var a) && !string.IsNullOrWhiteSpace(a) ? a
            : throw new ArgumentException("--platform-auth needs Auth:Authority (the local issuer, e.g. http://127.0.0.1:7079/<tenant>/v2.0) in the settings.");
        var audience = settings.TryGetValue("Auth:Audience", out var aud) && !string.IsNullOrWhiteSpace(aud) ? aud
            : throw new ArgumentException("--platform-auth needs Auth:Audience (the app registration's client id) in the settings.");
        var audiences = settings.TryGetValue("Auth:AppIdUri", out var uri) && !string.IsNullOrWhiteSpace(uri) ? new[] { audience, uri } : [audience];

        // What the platform tells the app, and the app's setting that relies on it (infra/modules/functionApp.bicep).
        settings["WEBSITE_AUTH_ENABLED"] = "True";
        settings["Auth:PlatformAuthentication"] = "true";
        settings["Auth:Disabled"] = "false";
        return new PlatformAuthentication(authority, audiences);
    }

    /// <summary>The platform's gate: strip, validate, pass the principal on or answer 401.</summary>
    public async Task InvokeAsync(HttpContext context, RequestDelegate next)
    {
        foreach (var name in context.Request.Headers.Keys.Where(k => k.StartsWith(PrincipalHeader, StringComparison.OrdinalIgnoreCase)).ToList())
        {
            context.Request.Headers.Remove(name);
        }

        // infra/'s authsettingsV2 excludes /api/receivers/* (the anonymous public key sets): no principal, no 401.
        if (context.Request.Path.StartsWithSegments(ExcludedPath, StringComparison.Ordinal))
        {
            await next(context).ConfigureAwait(false);
            return;
        }

        var principal = await ValidateAsync(context.Request.Headers.Authorization, context.RequestAborted).ConfigureAwait(false);
        if (principal is null)
        {
            context.Response.StatusCode = StatusCodes.Status401Unauthorized;
            context.Response.Headers.WWWAuthenticate = "Bearer";
            return;
        }

        context.Request.Headers[PrincipalHeader] = principal;
        await next(context).ConfigureAwait(false);
    }

    private async Task<string?> ValidateAsync(Microsoft.Extensions.Primitives.StringValues authorization, CancellationToken cancellationToken)
    {
        if (authorization.Count != 1 || authorization[0] is not { } value || !value.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase) || value.Length > 16 * 1024)
        {
            return null;
        }

        var configuration = await _metadata.GetConfigurationAsync(cancellationToken).ConfigureAwait(false);
        var result = await _handler.ValidateTokenAsync(value["Bearer ".Length..].Trim(), new TokenValidationParameters
        {
            ValidIssuer = configuration.Issuer,
            ValidAudiences = _audiences,
            IssuerSigningKeys = configuration.SigningKeys,
            ValidateLifetime = true,
            RequireExpirationTime = true,
            RequireSignedTokens = true,
            ClockSkew = TimeSpan.FromMinutes(2),
        }).ConfigureAwait(false);
        if (!result.IsValid || result.SecurityToken is not JsonWebToken token)
        {
            return null;
        }

        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteString("auth_typ", "aad");
            json.WriteStartArray("claims");
            foreach (var claim in token.Claims)
            {
                json.WriteStartObject();
                json.WriteString("typ", Mapped.GetValueOrDefault(claim.Type, claim.Type));
                json.WriteString("val", claim.Value);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteString("name_typ", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name");
            json.WriteString("role_typ", RoleLong);
            json.WriteEndObject();
        }

        return Convert.ToBase64String(buffer.GetBuffer(), 0, (int)buffer.Length);
    }
}
