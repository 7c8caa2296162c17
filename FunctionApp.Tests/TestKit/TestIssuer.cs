using System.Net;
using System.Security.Cryptography;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using WidgetSigning.Callers;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A local OpenID Connect issuer on a real Kestrel (127.0.0.1, a free port): <c>{Authority}/.well-known/openid-configuration</c>
/// and the JWKS of its RSA key, each fetch counted, and Entra-shaped v2 access tokens minted with
/// <see cref="JsonWebTokenHandler.CreateToken(SecurityTokenDescriptor)"/>. <see cref="TokenSpec"/> bends a token for an
/// attack: claims, lifetime, another key or algorithm, <c>typ</c>, extra header fields.
/// </summary>
public sealed class TestIssuer : IAsyncDisposable
{
    /// <summary>The local tenant (as <c>npm start</c>'s issuer).</summary>
    public const string TenantId = "7a1e0000-0000-4000-8000-000000000001";

    /// <summary>The app registration's client id: the <c>aud</c> of the tokens minted.</summary>
    public const string Audience = "7a1e0000-0000-4000-8000-000000000002";

    /// <summary>The Application ID URI, also accepted as <c>aud</c>.</summary>
    public const string AppIdUri = "api://widget-signing-local";

    /// <summary>The default caller's object id.</summary>
    public const string CallerObjectId = "7a1e0000-0000-4000-8000-00000000000c";

    /// <summary>The default caller's client application.</summary>
    public const string CallerAppId = "7a1e0000-0000-4000-8000-00000000000d";

    private static readonly JsonWebTokenHandler Handler = new() { SetDefaultTimesOnTokenCreation = false };

    private readonly WebApplication _app;
    private int _metadataFetches;
    private int _jwksFetches;
    private volatile bool _down;
    private TaskCompletionSource? _stall;
    private int _stalled;

    private TestIssuer(WebApplication app, RsaSecurityKey key)
    {
        _app = app;
        Key = key;
    }

    /// <summary>The authority, <c>http://127.0.0.1:port/{tenant}/v2.0</c>; also the <c>iss</c> of its tokens.</summary>
    public string Authority { get; private set; } = null!;

    /// <summary>The issuer's signing key (its <c>kid</c> is in the JWKS).</summary>
    public RsaSecurityKey Key { get; }

    /// <summary>How many times the OpenID configuration was fetched.</summary>
    public int MetadataFetches => Volatile.Read(ref _metadataFetches);

    /// <summary>How many times the JWKS was fetched.</summary>
    public int JwksFetches => Volatile.Read(ref _jwksFetches);

    /// <summary>While set, every fetch (still counted) is answered 503, as an issuer in an outage does.</summary>
    public bool Down
    {
        get => _down;
        set => _down = value;
    }

    /// <summary>
    /// While set, each fetch of the OpenID configuration (still counted) waits until the source completes or the client
    /// gives up: a slow issuer.
    /// </summary>
    public TaskCompletionSource? Stall
    {
        get => Volatile.Read(ref _stall);
        set => Volatile.Write(ref _stall, value);
    }

    /// <summary>How many fetches of the OpenID configuration are waiting on <see cref="Stall"/> now (a client that gave up ends its wait).</summary>
    public int Stalled => Volatile.Read(ref _stalled);

    /// <summary>A fresh RSA key with a random <c>kid</c>, as another issuer (or an attacker) would hold.</summary>
    public static RsaSecurityKey NewKey(string? kid = null) =>
        new(RSA.Create(2048)) { KeyId = kid ?? Convert.ToHexString(RandomNumberGenerator.GetBytes(8)) };

    /// <summary>Starts an issuer for <paramref name="tenantId"/> on a free loopback port.</summary>
    public static async Task<TestIssuer> StartAsync(string tenantId = TenantId)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0));
        var app = builder.Build();
        var issuer = new TestIssuer(app, NewKey());
        var path = $"/{tenantId}/v2.0";
        app.MapGet(path + "/.well-known/openid-configuration", async (HttpContext context) =>
        {
            Interlocked.Increment(ref issuer._metadataFetches);
            if (issuer.Stall is { } stall)
            {
                Interlocked.Increment(ref issuer._stalled);
                try
                {
                    await stall.Task.WaitAsync(context.RequestAborted).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return Results.Empty;
                }
                finally
                {
                    Interlocked.Decrement(ref issuer._stalled);
                }
            }

            if (issuer.Down)
            {
                return Results.StatusCode(StatusCodes.Status503ServiceUnavailable);
            }

            return Results.Text(
                JsonSerializer.Serialize(new Dictionary<string, object>
                {
                    ["issuer"] = issuer.Authority,
                    ["jwks_uri"] = issuer.Authority + "/discovery/keys",
                    ["authorization_endpoint"] = issuer.Authority + "/authorize",
                    ["token_endpoint"] = issuer.Authority + "/token",
                    ["id_token_signing_alg_values_supported"] = new[] { "RS256" },
                }),
                "application/json");
        });
        app.MapGet(path + "/discovery/keys", () =>
        {
            Interlocked.Increment(ref issuer._jwksFetches);
            if (issuer.Down)
            {
                return Results.StatusCode(StatusCodes.Status503ServiceUnavailable);
            }

            var parameters = issuer.Key.Rsa.ExportParameters(includePrivateParameters: false);
            var jwk = new Dictionary<string, object>
            {
                ["kty"] = "RSA",
                ["use"] = "sig",
                ["alg"] = "RS256",
                ["kid"] = issuer.Key.KeyId,
                ["n"] = Base64UrlEncoder.Encode(parameters.Modulus),
                ["e"] = Base64UrlEncoder.Encode(parameters.Exponent),
            };
            return Results.Text(JsonSerializer.Serialize(new { keys = new[] { jwk } }), "application/json");
        });
        await app.StartAsync().ConfigureAwait(false);
        issuer.Authority = app.Urls.Single().TrimEnd('/') + path;
        return issuer;
    }

    /// <summary>A token as Entra issues it for the default caller with <paramref name="roles"/>, bent by <paramref name="spec"/>.</summary>
    public string Mint(TokenSpec? spec = null, params string[] roles)
    {
        spec ??= new TokenSpec();
        var now = DateTime.UtcNow;
        var notBefore = spec.NotBefore ?? now.AddMinutes(-1);
        var claims = new Dictionary<string, object>(StringComparer.Ordinal)
        {
            ["iss"] = Authority,
            ["aud"] = Audience,
            ["iat"] = EpochTime.GetIntDate(notBefore),
            ["nbf"] = EpochTime.GetIntDate(notBefore),
            ["exp"] = EpochTime.GetIntDate(spec.Expires ?? now + spec.Lifetime),
            ["tid"] = TenantId,
            ["oid"] = CallerObjectId,
            ["sub"] = CallerObjectId,
            ["azp"] = CallerAppId,
            ["ver"] = "2.0",
            ["roles"] = roles.Length == 0 ? new[] { AppRoles.Sign } : roles,
        };
        foreach (var (name, value) in spec.Claims)
        {
            if (value is null)
            {
                claims.Remove(name);
            }
            else
            {
                claims[name] = value;
            }
        }

        var descriptor = new SecurityTokenDescriptor
        {
            Claims = claims,
            SigningCredentials = spec.Signing ?? new SigningCredentials(Key, SecurityAlgorithms.RsaSha256),
            TokenType = spec.Typ,
            AdditionalHeaderClaims = spec.Header.Count == 0 ? null : new Dictionary<string, object>(spec.Header),
        };
        return Handler.CreateToken(descriptor);
    }

    /// <summary>
    /// A token signed with the issuer's key whose header and payload JSON are <paramref name="payload"/>'s and
    /// <paramref name="header"/>'s rewrites of a minted one's (<paramref name="spec"/>): shapes a descriptor cannot make,
    /// such as a member written twice.
    /// </summary>
    public string MintEdited(Func<string, string>? payload = null, Func<string, string>? header = null, TokenSpec? spec = null)
    {
        var parts = Mint(spec).Split('.');
        var headerJson = Base64UrlEncoder.Decode(parts[0]);
        var payloadJson = Base64UrlEncoder.Decode(parts[1]);
        var signingInput = Base64UrlEncoder.Encode(header?.Invoke(headerJson) ?? headerJson) + "." + Base64UrlEncoder.Encode(payload?.Invoke(payloadJson) ?? payloadJson);
        var signature = Key.Rsa.SignData(System.Text.Encoding.ASCII.GetBytes(signingInput), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        return signingInput + "." + Base64UrlEncoder.Encode(signature);
    }

    /// <summary>An unsigned token (<c>alg: none</c>, empty signature segment) with the default claims.</summary>
    public string MintUnsigned(params string[] roles)
    {
        var signed = Mint(null, roles);
        var payload = signed.Split('.')[1];
        var header = Base64UrlEncoder.Encode("{\"alg\":\"none\",\"typ\":\"JWT\"}");
        return $"{header}.{payload}.";
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync().ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
        Key.Rsa.Dispose();
    }
}
