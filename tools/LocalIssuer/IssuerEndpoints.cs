using System.Globalization;
using Microsoft.IdentityModel.Tokens;

namespace LocalIssuer;

/// <summary>
/// The routes an Entra tenant serves for app-only tokens, at the same paths under the local tenant: OpenID metadata,
/// the key set, and the v2 token endpoint.
/// </summary>
internal static class IssuerEndpoints
{
    /// <summary>Maps the issuer's routes; anything else is a 404.</summary>
    /// <param name="app">The application.</param>
    public static void Map(WebApplication app)
    {
        app.MapGet("/{tenant}/v2.0/.well-known/openid-configuration", (HttpContext context, string tenant) => KnownTenant(context, tenant, () =>
        {
            var authority = Authority(context);
            var origin = Origin(context);
            return Results.Json(new
            {
                issuer = authority,
                token_endpoint = $"{origin}/{LocalTenant.TenantId}/oauth2/v2.0/token",
                jwks_uri = $"{origin}/{LocalTenant.TenantId}/discovery/v2.0/keys",
                token_endpoint_auth_methods_supported = new[] { "client_secret_post" },
                grant_types_supported = new[] { "client_credentials" },
                response_types_supported = new[] { "token" },
                subject_types_supported = new[] { "pairwise" },
                id_token_signing_alg_values_supported = new[] { SecurityAlgorithms.RsaSha256 },
                claims_supported = new[] { "iss", "aud", "exp", "nbf", "iat", "tid", "oid", "azp", "sub", "roles", "ver", "idtyp" },
                tenant_region_scope = "local",
            });
        }));

        app.MapGet("/{tenant}/discovery/v2.0/keys", (HttpContext context, string tenant, SigningKey key) => KnownTenant(context, tenant, () =>
        {
            var jwk = key.PublicJwk;
            return Results.Json(new { keys = new[] { new { kty = jwk.Kty, use = jwk.Use, kid = jwk.Kid, alg = jwk.Alg, n = jwk.N, e = jwk.E } } });
        }));

        app.MapPost("/{tenant}/oauth2/v2.0/token", async (HttpContext context, string tenant, TokenMinter minter) =>
        {
            if (!IsLocalTenant(tenant))
            {
                return UnknownTenant(tenant);
            }

            var (request, error) = await TokenRequest.ReadAsync(context.Request);
            if (error is not null)
            {
                return new ErrorResult(error);
            }

            context.Response.Headers.CacheControl = "no-store";
            return Results.Json(new
            {
                token_type = "Bearer",
                expires_in = (int)LocalTenant.TokenLifetime.TotalSeconds,
                ext_expires_in = (int)LocalTenant.TokenLifetime.TotalSeconds,
                access_token = minter.Mint(Authority(context), request!),
            });
        });

        app.MapFallback((HttpContext context) => new ErrorResult(new IssuerError(
            StatusCodes.Status404NotFound, "not_found", "path", $"The issuer serves /{LocalTenant.TenantId}/v2.0/.well-known/openid-configuration, /{LocalTenant.TenantId}/discovery/v2.0/keys and POST /{LocalTenant.TenantId}/oauth2/v2.0/token.")));
    }

    /// <summary>The authority and issuer: always 127.0.0.1 and the port the request came in on, never the Host header.</summary>
    private static string Authority(HttpContext context) => $"{Origin(context)}/{LocalTenant.TenantId}/v2.0";

    private static string Origin(HttpContext context) => string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{context.Connection.LocalPort}");

    private static bool IsLocalTenant(string tenant) => string.Equals(tenant, LocalTenant.TenantId, StringComparison.OrdinalIgnoreCase);

    private static IResult KnownTenant(HttpContext context, string tenant, Func<IResult> answer)
    {
        if (!IsLocalTenant(tenant))
        {
            return UnknownTenant(tenant);
        }

        context.Response.Headers.CacheControl = "no-store";
        return answer();
    }

    private static ErrorResult UnknownTenant(string tenant) => new(new IssuerError(
        StatusCodes.Status404NotFound, "invalid_tenant", "tenant", $"Unknown tenant '{(tenant.Length <= 64 ? tenant : tenant[..64] + "...")}'; the local issuer serves {LocalTenant.TenantId}."));

    /// <summary>An <see cref="IssuerError"/> as an endpoint result.</summary>
    private sealed class ErrorResult(IssuerError error) : IResult
    {
        public Task ExecuteAsync(HttpContext httpContext) => error.WriteAsync(httpContext);
    }
}
