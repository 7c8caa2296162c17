using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace LocalIssuer;

/// <summary>Mints Entra-v2-shaped app-only access tokens (<c>idtyp</c> app, <c>ver</c> 2.0, <c>aud</c> the client id).</summary>
/// <param name="key">The signing key.</param>
/// <param name="time">The clock.</param>
internal sealed class TokenMinter(SigningKey key, TimeProvider time)
{
    private readonly JsonWebTokenHandler _handler = new() { SetDefaultTimesOnTokenCreation = false };

    /// <summary>A signed token for <paramref name="request"/> from <paramref name="issuer"/>.</summary>
    /// <param name="issuer">The issuer, as the metadata names it.</param>
    /// <param name="request">Who the token is for and which roles it carries.</param>
    public string Mint(string issuer, TokenRequest request)
    {
        var now = time.GetUtcNow().UtcDateTime;
        var claims = new Dictionary<string, object>(StringComparer.Ordinal)
        {
            ["tid"] = LocalTenant.TenantId,
            ["oid"] = request.ObjectId,
            ["sub"] = request.ObjectId,
            ["azp"] = request.ClientId,
            ["azpacr"] = "1",
            ["idtyp"] = "app",
            ["ver"] = "2.0",
        };

        // As Entra: no roles claim when the caller holds none.
        if (request.Roles.Count > 0)
        {
            claims["roles"] = request.Roles.ToArray();
        }

        return _handler.CreateToken(new SecurityTokenDescriptor
        {
            Issuer = issuer,
            Audience = LocalTenant.Audience,
            IssuedAt = now,
            NotBefore = now,
            Expires = now + LocalTenant.TokenLifetime,
            Claims = claims,
            TokenType = JwtConstants.HeaderType,
            SigningCredentials = key.Credentials,
        });
    }
}
