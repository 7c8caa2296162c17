using Microsoft.IdentityModel.Tokens;

namespace FunctionApp.Tests.TestKit;

/// <summary>How <see cref="TestIssuer.Mint"/> bends a token away from what Entra issues: each member left alone keeps Entra's shape.</summary>
public sealed class TokenSpec
{
    /// <summary>Claims set over the defaults (<c>iss</c>, <c>aud</c>, <c>tid</c>, <c>oid</c>, ...); a null value removes the claim.</summary>
    public Dictionary<string, object?> Claims { get; init; } = new(StringComparer.Ordinal);

    /// <summary>How long the token is valid from now (ignored when <see cref="Expires"/> is set). Default one hour.</summary>
    public TimeSpan Lifetime { get; init; } = TimeSpan.FromHours(1);

    /// <summary>The <c>exp</c>; default now + <see cref="Lifetime"/>.</summary>
    public DateTime? Expires { get; init; }

    /// <summary>The <c>nbf</c> and <c>iat</c>; default a minute ago.</summary>
    public DateTime? NotBefore { get; init; }

    /// <summary>Another key, <c>kid</c> or algorithm; default the issuer's key with RS256.</summary>
    public SigningCredentials? Signing { get; init; }

    /// <summary>The header's <c>typ</c>. Default JWT.</summary>
    public string Typ { get; init; } = "JWT";

    /// <summary>Header fields added.</summary>
    public Dictionary<string, object> Header { get; init; } = new(StringComparer.Ordinal);
}
