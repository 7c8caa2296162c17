using System.Text;
using System.Text.Json.Nodes;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using Microsoft.IdentityModel.Tokens;
using WidgetSigning.Callers.Entra;
using WidgetSigning.Callers;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Callers;

/// <summary>
/// <see cref="EntraTokenValidator"/> against a real OpenID issuer on loopback (<see cref="TestIssuer"/>): each rule of an
/// Entra access token, and each forgery an attacker can try, is a test. Every rejection is a
/// a <see cref="ProblemException"/> of <see cref="Problems.Types.Unauthenticated"/> whose message quotes no part of the token.
/// </summary>
public sealed class EntraTokenValidatorTests : IAsyncLifetime
{
    private TestIssuer _issuer = null!;
    private EntraTokenValidator _validator = null!;

    public async Task InitializeAsync()
    {
        _issuer = await TestIssuer.StartAsync();
        _validator = Validator(_issuer);
    }

    public async Task DisposeAsync()
    {
        _validator.Dispose();
        await _issuer.DisposeAsync();
    }

    [Fact]
    public async Task ValidateAsync_EntraShapedToken_ReturnsTheCallersIdentity()
    {
        // Arrange
        var token = _issuer.Mint(null, AppRoles.Sign, AppRoles.Verify);

        // Act
        var caller = await _validator.ValidateAsync(token, CancellationToken.None);

        // Assert
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
        Assert.Equal(TestIssuer.CallerAppId, caller.AppId);
        Assert.Equal(TestIssuer.TenantId, caller.TenantId);
        Assert.Equal([AppRoles.Sign, AppRoles.Verify], caller.Roles);
        Assert.False(caller.IsDevelopment);
    }

    [Fact]
    public async Task ValidateAsync_AppIdUriAudienceAndUpperCaseOid_IsAcceptedWithTheOidInLowerCase()
    {
        // Arrange
        var token = _issuer.Mint(new TokenSpec { Claims = { ["aud"] = TestIssuer.AppIdUri, ["oid"] = TestIssuer.CallerObjectId.ToUpperInvariant() } });

        // Act
        var caller = await _validator.ValidateAsync(token, CancellationToken.None);

        // Assert: grants are keyed by the lower-case oid.
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
    }

    [Fact]
    public async Task ValidateAsync_ExpiredToken_IsRejected()
    {
        // Arrange: expired beyond the two minutes of clock skew.
        var now = DateTime.UtcNow;
        var token = _issuer.Mint(new TokenSpec { NotBefore = now.AddMinutes(-70), Expires = now.AddMinutes(-10) });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("expired", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_NotBeforeBeyondClockSkew_IsRejected()
    {
        // Arrange
        var now = DateTime.UtcNow;
        var token = _issuer.Mint(new TokenSpec { NotBefore = now.AddMinutes(10), Expires = now.AddMinutes(70) });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(nbf)", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_NoExpiry_IsRejected()
    {
        // Arrange
        var token = _issuer.Mint(new TokenSpec { Claims = { ["exp"] = null } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(exp)", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_TokenForAnotherApp_IsRejectedForItsAudience()
    {
        // Arrange: a token the caller got for another resource, replayed here.
        var token = _issuer.Mint(new TokenSpec { Claims = { ["aud"] = "00000003-0000-0000-c000-000000000000" } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(aud)", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_WrongIssuerSignedWithTheIssuersKey_IsRejected()
    {
        // Arrange
        var token = _issuer.Mint(new TokenSpec { Claims = { ["iss"] = "https://sts.windows.net/" + TestIssuer.TenantId + "/" } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(iss)", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_TokenOfAnotherTenant_IsRejectedForItsTid()
    {
        // Arrange: right issuer and key, but the tid of another tenant.
        var token = _issuer.Mint(new TokenSpec { Claims = { ["tid"] = "11111111-2222-4333-8444-555555555555" } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(tid)", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_AlgNoneUnsignedToken_IsRejected()
    {
        // Arrange: the claims of a good token with alg none and no signature (CallerAuthenticator refuses this shape
        // before the validator; this is the validator's own refusal).
        var token = _issuer.MintUnsigned();

        // Act + Assert
        await RejectedAsync(token);
    }

    [Fact]
    public async Task ValidateAsync_AlgNoneWithAJunkSignatureSegment_IsRejected()
    {
        // Arrange: alg none passes the three-segment shape check when the signature segment is not empty.
        var token = _issuer.MintUnsigned() + "AAAA";

        // Act + Assert
        await RejectedAsync(token);
    }

    public static TheoryData<string> PublicKeyForms() => ["spki-der", "pem", "modulus"];

    [Theory]
    [MemberData(nameof(PublicKeyForms))]
    public async Task ValidateAsync_AlgorithmConfusionHs256SignedWithThePublicKey_IsRejected(string form)
    {
        // Arrange: the issuer's public key (anyone has it from the JWKS) as an HMAC secret, with the issuer's kid.
        var rsa = _issuer.Key.Rsa;
        var secret = form switch
        {
            "spki-der" => rsa.ExportSubjectPublicKeyInfo(),
            "pem" => Encoding.ASCII.GetBytes(rsa.ExportSubjectPublicKeyInfoPem()),
            _ => rsa.ExportParameters(false).Modulus!,
        };
        var hmac = new SymmetricSecurityKey(secret) { KeyId = _issuer.Key.KeyId };
        var token = _issuer.Mint(new TokenSpec { Signing = new SigningCredentials(hmac, SecurityAlgorithms.HmacSha256) });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert: the issuer's key is an RSA key; HS256 with it is no signature at all.
        Assert.Contains(rejected.Message, new[] { "The token's signature is not valid.", "The token's signing algorithm is not accepted (RS256 only)." });
    }

    [Fact]
    public async Task ValidateAsync_UnknownKid_IsRejected()
    {
        // Arrange
        var token = _issuer.Mint(new TokenSpec { Signing = new SigningCredentials(TestIssuer.NewKey(), SecurityAlgorithms.RsaSha256) });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(kid)", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_FloodOfUnknownKidsForTwentyMinutes_FetchesAtMostOncePerRefreshInterval()
    {
        // Arrange: a validator on a clock the test moves, its keys loaded by a good token; an attacker's key.
        var clock = new FakeTimeProvider(DateTimeOffset.UtcNow);
        using var validator = Validator(_issuer.Authority, NullLogger<EntraTokenValidator>.Instance, clock);
        await validator.ValidateAsync(_issuer.Mint(), CancellationToken.None);
        using var attacker = System.Security.Cryptography.RSA.Create(2048);
        var outcomes = new List<string>();
        var flood = TimeSpan.FromMinutes(20);

        // Act: every 10 s for 20 minutes, five tokens at once, each with a kid of its own.
        for (var step = 0; step < flood / TimeSpan.FromSeconds(10); step++)
        {
            var tokens = Enumerable.Range(0, 5)
                .Select(i => _issuer.Mint(new TokenSpec { Signing = new SigningCredentials(new RsaSecurityKey(attacker) { KeyId = $"unknown-{step}-{i}" }, SecurityAlgorithms.RsaSha256) }))
                .ToList();
            outcomes.AddRange(await Task.WhenAll(tokens.Select(t => Task.Run(async () =>
            {
                try
                {
                    await validator.ValidateAsync(t, CancellationToken.None);
                    return "accepted";
                }
                catch (ProblemException e) when (e.Is(Problems.Types.Unauthenticated))
                {
                    return e.Message;
                }
            }))));
            clock.Advance(TimeSpan.FromSeconds(10));
        }

        await validator.ValidateAsync(_issuer.Mint(null, AppRoles.Verify), CancellationToken.None);

        // Assert: each refused for its kid; the first load and at most one refresh per 5 minutes (the documented
        // interval, written out so that a shorter RefreshInterval fails here).
        Assert.All(outcomes, o => Assert.Equal("The token's signing key is not one of the issuer's (kid).", o));
        var most = 1 + (int)Math.Ceiling(flood / TimeSpan.FromMinutes(5));
        Assert.InRange(_issuer.MetadataFetches, 2, most);
        Assert.InRange(_issuer.JwksFetches, 2, most);
    }

    [Theory]
    [InlineData(TestIssuer.TenantId)]
    [InlineData(null)]
    public async Task ValidateAsync_TokenWithoutTid_IsRejectedNot500(string? tenantId)
    {
        // Arrange: a validly signed token with no tid, against a validator with and without Auth:TenantId (the
        // configuration the app now refuses at start, but the validator must not depend on that).
        using var validator = new EntraTokenValidator(
            Options.Create(new AuthOptions { Authority = _issuer.Authority, TenantId = tenantId, Audience = TestIssuer.Audience }),
            NullLogger<EntraTokenValidator>.Instance);
        await KeysLoadedAsync(validator);
        var token = _issuer.Mint(new TokenSpec { Claims = { ["tid"] = null } });

        // Act
        var rejected = await Record.ExceptionAsync(() => validator.ValidateAsync(token, CancellationToken.None).AsTask());

        // Assert: a 401 naming the claim, never a NullReferenceException (500).
        var refusal = ProblemAssert.Is(Problems.Types.Unauthenticated, rejected);
        Assert.Contains("(tid)", refusal.Message, StringComparison.Ordinal);
    }

    public static TheoryData<string, string> HostileAppIds() => new()
    {
        { "azp", "x\r\n[FAKE] Audit sign Signed 200\u001b[31m\u202E" },
        { "appid", "x\r\n[FAKE] Audit sign Signed 200\u001b[31m\u202E" },
        { "azp", new string('a', 8 * 1024) },
    };

    [Theory]
    [MemberData(nameof(HostileAppIds))]
    public async Task ValidateAsync_AzpWithControlCharacters_IsRejected(string claim, string value)
    {
        // Arrange: a validly signed token whose client application claim carries log-forging text, or 8 KB of it.
        var spec = new TokenSpec { Claims = { [claim] = value } };
        if (claim != "azp")
        {
            spec.Claims["azp"] = null;
        }

        var token = _issuer.Mint(spec);

        // Act
        var rejected = await RejectedAsync(token);

        // Assert: refused in fixed words that quote none of the claim.
        Assert.Contains("(azp or appid)", rejected.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("FAKE", rejected.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("aaaaaaaa", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ValidateAsync_TokenOfASecondIssuer_IsRejected()
    {
        // Arrange: another OpenID issuer (same tenant id and audience) hands out a perfectly good token of its own.
        await using var second = await TestIssuer.StartAsync();
        var token = second.Mint();

        // Act + Assert
        await RejectedAsync(token);
    }

    [Fact]
    public async Task ValidateAsync_SecondIssuersKeyClaimingTheFirstIssuerAndKid_IsRejectedForItsSignature()
    {
        // Arrange: a forgery with the first issuer's iss and kid, signed with a key the first issuer never published.
        await using var second = await TestIssuer.StartAsync();
        var forgedKey = new RsaSecurityKey(second.Key.Rsa) { KeyId = _issuer.Key.KeyId };
        var token = second.Mint(new TokenSpec
        {
            Claims = { ["iss"] = _issuer.Authority },
            Signing = new SigningCredentials(forgedKey, SecurityAlgorithms.RsaSha256),
        });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("signature", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("at+jwt")]
    [InlineData("JWE")]
    [InlineData("id_token")]
    public async Task ValidateAsync_TypOtherThanJwt_IsRejected(string typ)
    {
        // Arrange
        var token = _issuer.Mint(new TokenSpec { Typ = typ });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(typ)", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0, "A")]
    [InlineData(1, "A")]
    [InlineData(1, "AAAA")]
    [InlineData(1, "%%%%")]
    [InlineData(0, "e30")]
    public async Task ValidateAsync_MalformedSegment_IsRejected(int segment, string replacement)
    {
        // Arrange: one segment of a good token replaced by bad base64url, or base64url that is not the JSON expected.
        var parts = _issuer.Mint().Split('.');
        parts[segment] = replacement;
        var token = string.Join('.', parts);

        // Act + Assert
        await RejectedAsync(token);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("not-a-guid")]
    public async Task ValidateAsync_NoUsableOid_IsRejected(string? oid)
    {
        // Arrange
        var token = _issuer.Mint(new TokenSpec { Claims = { ["oid"] = oid } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(oid)", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(TestIssuer.TenantId)]
    [InlineData("11111111-2222-4333-8444-555555555555", TestIssuer.TenantId)]
    public async Task ValidateAsync_TidAsAnArray_IsRejectedNamingTid(params string[] tenants)
    {
        // Arrange: a validly signed token whose tid is an array: which element is the tenant? Entra issues a string.
        var token = _issuer.Mint(new TokenSpec { Claims = { ["tid"] = tenants } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal("The token's 'tid' claim is not a string, as Entra issues it.", rejected.Message);
    }

    [Fact]
    public async Task ValidateAsync_TwoTidMembersTheWrongOneFirst_IsRejectedNamingTid()
    {
        // Arrange: the same payload with another tenant's tid written before the right one; a parser that keeps the
        // last member reads the tenant, one that keeps the first reads the other.
        var token = _issuer.MintEdited(payload: p => "{\"tid\":\"11111111-2222-4333-8444-555555555555\"," + p[1..]);

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal("The token has more than one 'tid' claim.", rejected.Message);
    }

    [Theory]
    [InlineData("tid")]
    [InlineData("oid")]
    [InlineData("azp")]
    [InlineData("roles")]
    [InlineData("aud")]
    [InlineData("iss")]
    [InlineData("exp")]
    [InlineData("nbf")]
    public async Task ValidateAsync_ClaimWrittenTwice_IsRejectedNamingIt(string claim)
    {
        // Arrange: the claim written again, with the same value, first in the payload.
        var token = _issuer.MintEdited(payload: p => "{\"" + claim + "\":" + JsonNode.Parse(p)![claim]!.ToJsonString() + "," + p[1..]);

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal($"The token has more than one '{claim}' claim.", rejected.Message);
    }

    [Fact]
    public async Task ValidateAsync_SecondTidSpelledWithAnEscape_IsRejectedNamingTid()
    {
        // Arrange: "t\u0069d" is the member name tid once unescaped, as every JSON parser reads it.
        var token = _issuer.MintEdited(payload: p => "{\"t\\u0069d\":\"11111111-2222-4333-8444-555555555555\"," + p[1..]);

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal("The token has more than one 'tid' claim.", rejected.Message);
    }

    [Theory]
    [InlineData("roles", "\"Widgets.Sign\"", "an array of strings")]
    [InlineData("roles", "[\"Widgets.Sign\",7]", "an array of strings")]
    [InlineData("roles", "[[\"Widgets.Sign\"]]", "an array of strings")]
    [InlineData("oid", "[\"7a1e0000-0000-4000-8000-00000000000c\"]", "a string")]
    [InlineData("azp", "{\"id\":\"7a1e0000-0000-4000-8000-00000000000d\"}", "a string")]
    [InlineData("aud", "[\"7a1e0000-0000-4000-8000-000000000002\",\"api://another\"]", "a string")]
    [InlineData("exp", "\"4102444800\"", "a number")]
    public async Task ValidateAsync_ClaimOfAnotherJsonType_IsRejectedNamingIt(string claim, string json, string kind)
    {
        // Arrange
        var token = _issuer.MintEdited(payload: p =>
        {
            var payload = JsonNode.Parse(p)!.AsObject();
            payload[claim] = JsonNode.Parse(json);
            return payload.ToJsonString();
        });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal($"The token's '{claim}' claim is not {kind}, as Entra issues it.", rejected.Message);
    }

    [Fact]
    public async Task ValidateAsync_AzpAndAppid_IsRejectedNamingBoth()
    {
        // Arrange: a v2 token names its client in azp, a v1 token in appid; one with both names two clients.
        var token = _issuer.Mint(new TokenSpec { Claims = { ["appid"] = "7a1e0000-0000-4000-8000-0000000000ee" } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal("The token names its client application twice (azp and appid).", rejected.Message);
    }

    [Fact]
    public async Task ValidateAsync_CritHeader_IsRejectedNamingCrit()
    {
        // Arrange: RFC 7515 §4.1.11: a recipient that does not understand a listed extension must reject the JWS.
        var token = _issuer.Mint(new TokenSpec { Header = { ["crit"] = new[] { "urn:example:policy" }, ["urn:example:policy"] = "sign-anything" } });

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Contains("(crit)", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("kid", "\"another-key\"")]
    [InlineData("alg", "\"none\"")]
    public async Task ValidateAsync_HeaderMemberWrittenTwice_IsRejectedNamingIt(string member, string json)
    {
        // Arrange
        var token = _issuer.MintEdited(header: h => "{\"" + member + "\":" + json + "," + h[1..]);

        // Act
        var rejected = await RejectedAsync(token);

        // Assert
        Assert.Equal($"The token has more than one '{member}' header member.", rejected.Message);
    }

    /// <summary>The validator the isolated app builds, for <paramref name="issuer"/>'s loopback authority.</summary>
    internal static EntraTokenValidator Validator(TestIssuer issuer) => Validator(issuer.Authority, NullLogger<EntraTokenValidator>.Instance);

    /// <summary>The validator the isolated app builds, for <paramref name="authority"/>, logging to <paramref name="logger"/>.</summary>
    internal static EntraTokenValidator Validator(string authority, ILogger<EntraTokenValidator> logger, TimeProvider? time = null) => new(
        Options.Create(new AuthOptions
        {
            Authority = authority,
            TenantId = TestIssuer.TenantId,
            Audience = TestIssuer.Audience,
            AppIdUri = TestIssuer.AppIdUri,
        }),
        logger,
        time);

    private Task KeysLoadedAsync() => KeysLoadedAsync(_validator);

    // Until the issuer's keys are held: a good token's answer, whatever it is, once it is no longer the outage's 503.
    private async Task KeysLoadedAsync(EntraTokenValidator validator)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (waited.Elapsed < TimeSpan.FromSeconds(30))
        {
            try
            {
                await validator.ValidateAsync(_issuer.Mint(), CancellationToken.None);
                return;
            }
            catch (ProblemException e) when (e.Is(Problems.Types.AuthUnavailable))
            {
                await Task.Delay(100);
            }
            catch (ProblemException)
            {
                return;
            }
        }
    }

    private async Task<ProblemException> RejectedAsync(string token)
    {
        // The issuer's keys first, as the host's warm-up fetches them at start: on a loaded machine a cold fetch can
        // outlast MaxWait, and the call would be the outage's 503 rather than the refusal under test.
        await KeysLoadedAsync();
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => _validator.ValidateAsync(token, CancellationToken.None).AsTask());
        Assert.DoesNotContain(token, rejected.Message, StringComparison.Ordinal);
        foreach (var part in token.Split('.').Where(p => p.Length >= 8))
        {
            Assert.DoesNotContain(part, rejected.Message, StringComparison.Ordinal);
        }

        Assert.Equal(Problems.InvalidTokenCode, ProblemAssert.BearerError(rejected));
        return rejected;
    }
}
