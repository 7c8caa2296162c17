using System.Net;
using System.Security.Cryptography;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// An OpenID issuer on loopback for the caller-check rows: the validator fetches its configuration and keys over a real
/// socket once, as it does from Entra, then validates tokens locally. Hand-written because the benchmarks cannot start
/// tools/LocalIssuer's process inside BenchmarkDotNet's in-process toolchain.
/// </summary>
public sealed class BenchmarkIssuer : IAsyncDisposable
{
    /// <summary>The tenant the tokens name.</summary>
    public const string Tenant = "7a1e0000-0000-4000-8000-0000000000b1";

    /// <summary>The app's client id, the tokens' audience.</summary>
    public const string Audience = "7a1e0000-0000-4000-8000-0000000000b2";

    /// <summary>The caller's object id.</summary>
    public const string Caller = "7a1e0000-0000-4000-8000-0000000000b3";

    private readonly WebApplication _app;
    private readonly RSA _rsa;
    private readonly RsaSecurityKey _key;

    private BenchmarkIssuer(WebApplication app, RSA rsa, RsaSecurityKey key, string authority)
    {
        _app = app;
        _rsa = rsa;
        _key = key;
        Authority = authority;
    }

    /// <summary>The authority the app is configured with.</summary>
    public string Authority { get; }

    /// <summary>Starts the issuer on a free loopback port.</summary>
    public static async Task<BenchmarkIssuer> StartAsync()
    {
#pragma warning disable CA2000 // owned by the issuer, disposed with it
        var rsa = RSA.Create(2048);
#pragma warning restore CA2000
        var key = new RsaSecurityKey(rsa) { KeyId = "bench-key" };
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0));
        var app = builder.Build();
        string Authority(HttpContext c) => $"http://{c.Request.Host}/{Tenant}/v2.0";
        app.MapGet($"/{Tenant}/v2.0/.well-known/openid-configuration", (HttpContext c) => Results.Json(new Dictionary<string, object>
        {
            ["issuer"] = Authority(c),
            ["jwks_uri"] = $"http://{c.Request.Host}/{Tenant}/discovery/v2.0/keys",
            ["id_token_signing_alg_values_supported"] = new[] { "RS256" },
        }));
        var publicKey = JsonWebKeyConverter.ConvertFromRSASecurityKey(new RsaSecurityKey(rsa.ExportParameters(false)) { KeyId = key.KeyId });
        app.MapGet($"/{Tenant}/discovery/v2.0/keys", () => Results.Json(new { keys = new[] { new { kty = "RSA", use = "sig", kid = publicKey.Kid, n = publicKey.N, e = publicKey.E } } }));
        await app.StartAsync().ConfigureAwait(false);
        var address = new Uri(app.Urls.First());
        return new BenchmarkIssuer(app, rsa, key, $"http://127.0.0.1:{address.Port}/{Tenant}/v2.0");
    }

    /// <summary>An access token for <see cref="Caller"/> with every role, valid for an hour.</summary>
    public string Token(params string[] roles) => new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
    {
        Issuer = Authority,
        Audience = Audience,
        Expires = DateTime.UtcNow.AddHours(1),
        SigningCredentials = new SigningCredentials(_key, SecurityAlgorithms.RsaSha256),
        Claims = new Dictionary<string, object> { ["tid"] = Tenant, ["oid"] = Caller, ["azp"] = Audience, ["roles"] = roles },
    });

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await _app.DisposeAsync().ConfigureAwait(false);
        _rsa.Dispose();
    }
}
