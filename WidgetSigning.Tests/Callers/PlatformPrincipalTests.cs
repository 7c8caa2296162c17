using System.Text;
using System.Text.Json.Nodes;
using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using WidgetSigning.Tests.Support;
using WidgetSigning.Callers;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Callers;

/// <summary>
/// <see cref="PlatformPrincipal"/>: the principal App Service Authentication passes, read only where the platform
/// vouches for it, and every way a forged or broken one could name a caller refused with 401.
/// </summary>
public sealed class PlatformPrincipalTests
{
    private const string ObjectIdLong = "http://schemas.microsoft.com/identity/claims/objectidentifier";
    private const string TenantIdLong = "http://schemas.microsoft.com/identity/claims/tenantid";
    private const string RoleLong = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role";

    private static readonly AuthOptions Options = new() { TenantId = TestIssuer.TenantId, Audience = TestIssuer.Audience, AppIdUri = TestIssuer.AppIdUri, PlatformAuthentication = true };

    /// <summary>
    /// The Functions host's own rule: it builds an identity from <c>x-ms-client-principal</c> only when
    /// <c>WEBSITE_AUTH_ENABLED</c> parses as true with <see cref="bool.TryParse(string?, out bool)"/>
    /// (azure-functions-host@89dc438d, src/WebJobs.Script/Environment/EnvironmentExtensions.cs <c>IsEasyAuthEnabled</c>;
    /// src/WebJobs.Script.WebHost/Security/Authentication/Keys/AuthenticationLevelHandler.cs: <c>if (_isEasyAuthEnabled)
    /// … Context.Request.GetAppServiceIdentity()</c>). The app reads the variable the same way.
    /// </summary>
    [Theory]
    [InlineData("True", true)]
    [InlineData("true", true)]
    [InlineData(" TRUE ", true)]
    [InlineData("False", false)]
    [InlineData("1", false)]
    [InlineData("yes", false)]
    [InlineData("", false)]
    [InlineData(null, false)]
    public void IsPlatformAuthenticationOn_WebsiteAuthEnabled_ParsedAsTheFunctionsHostParsesIt(string? value, bool expected)
    {
        // Act
        var on = PlatformPrincipal.IsPlatformAuthenticationOn(value);

        // Assert
        Assert.Equal(expected, on);
    }

    [Theory]
    [InlineData(true, "True", true)]
    [InlineData(true, null, false)]
    [InlineData(false, "True", false)]
    [InlineData(false, null, false)]
    public void IsVouchedFor_SettingAndPlatform_BothAreNeeded(bool setting, string? websiteAuthEnabled, bool expected)
    {
        // Arrange
        var options = new AuthOptions { TenantId = TestIssuer.TenantId, Audience = TestIssuer.Audience, PlatformAuthentication = setting };

        // Act
        var vouched = PlatformPrincipal.IsVouchedFor(options, websiteAuthEnabled);

        // Assert
        Assert.Equal(expected, vouched);
    }

    [Fact]
    public void Read_PrincipalAsThePlatformPassesIt_ReturnsTheCallerAndItsRoles()
    {
        // Arrange: the shape App Service Authentication passes for aad: oid and tid in their long forms, roles unmapped.
        var request = Request(Encode(Principal()));

        // Act
        var caller = PlatformPrincipal.Read(request, Options);

        // Assert
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
        Assert.Equal(TestIssuer.TenantId, caller.TenantId);
        Assert.Equal(TestIssuer.CallerAppId, caller.AppId);
        Assert.Equal([AppRoles.Sign, AppRoles.Verify], caller.Roles);
    }

    [Fact]
    public void Read_PrincipalWithAppIdAndTheAppIdUriAudience_ReturnsTheCaller()
    {
        // Arrange: a v1 token's client claim, and the Application ID URI as audience.
        var principal = Principal(appIdType: "appid", audience: TestIssuer.AppIdUri);

        // Act
        var caller = PlatformPrincipal.Read(Request(Encode(principal)), Options);

        // Assert
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
        Assert.Equal(TestIssuer.CallerAppId, caller.AppId);
        Assert.Contains(AppRoles.Sign, caller.Roles);
    }

    [Fact]
    public void Read_RoleUnderTheLongClaimTypeBesideRoles_IsRefusedNamingRoles()
    {
        // Arrange: roles grants Widgets.Verify; a second spelling of the claim tries to add Widgets.Sign.
        var principal = Principal(roles: [AppRoles.Verify]);
        principal["claims"]!.AsArray().Add(Claim(RoleLong, AppRoles.Sign));

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Equal($"The {PlatformPrincipal.HeaderName} principal names roles under a claim type other than the platform's (roles).", rejected.Message);
    }

    [Theory]
    [InlineData("role", "roles")]
    [InlineData("oid", "oid")]
    [InlineData("tid", "tid")]
    public void Read_ClaimUnderAShortSpellingBesideThePlatformsOne_IsRefusedNamingIt(string type, string named)
    {
        // Arrange: the claim again, under the token's own (unmapped) name: one claim, one spelling.
        var principal = Principal();
        principal["claims"]!.AsArray().Add(Claim(type, type == "role" ? AppRoles.Sign : TestIssuer.TenantId));

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains($"names {named} under a claim type other than the platform's", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("oid")]
    [InlineData("tid")]
    [InlineData("aud")]
    public void Read_ClaimRepeatedWithTheSameValue_IsRefused(string claim)
    {
        // Arrange: one member per claim, even when the copies agree.
        var principal = Principal();
        var type = claim switch { "oid" => ObjectIdLong, "tid" => TenantIdLong, _ => "aud" };
        var value = principal["claims"]!.AsArray().First(c => (string?)c!["typ"] == type)!["val"]!.GetValue<string>();
        principal["claims"]!.AsArray().Add(Claim(type, value));

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains($"more than one {claim} claim", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_AzpAndAppid_IsRefused()
    {
        // Arrange: a v2 token names its client in azp, a v1 token in appid; a principal with both names two.
        var principal = Principal();
        principal["claims"]!.AsArray().Add(Claim("appid", TestIssuer.CallerAppId));

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains("more than one azp or appid claim", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_PrincipalOfAnotherTenant_IsRefused()
    {
        // Arrange
        var principal = Principal(tenantId: "7a1e0000-0000-4000-8000-0000000000ff");

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains("(tid)", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("7a1e0000-0000-4000-8000-0000000000ee")]
    [InlineData("api://someone-else")]
    [InlineData(null)]
    public void Read_PrincipalWithAnotherAudience_IsRefused(string? audience)
    {
        // Arrange
        var principal = Principal(audience: audience);

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains("(aud)", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("google")]
    [InlineData("AAD")]
    [InlineData("")]
    [InlineData("aad ")]
    public void Read_PrincipalWithAuthTypeOtherThanAad_IsRefused(string authType)
    {
        // Arrange
        var principal = Principal();
        principal["auth_typ"] = authType;

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains("auth_typ", rejected.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("not base64 at all!")]
    [InlineData("eyJhdXRoX3R5cCI6")]
    [InlineData("e30")]
    [InlineData("")]
    public void Read_MalformedBase64_IsRefusedWithoutQuotingIt(string value)
    {
        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(value), Options));

        // Assert
        Assert.Contains(PlatformPrincipal.HeaderName, rejected.Message, StringComparison.Ordinal);
        Assert.Equal(Problems.InvalidTokenCode, ProblemAssert.BearerError(rejected));
        if (value.Length > 0)
        {
            Assert.DoesNotContain(value, rejected.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("{\"auth_typ\":\"aad\",\"claims\":")]
    [InlineData("[1,2,3]")]
    [InlineData("{\"auth_typ\":\"aad\"}")]
    [InlineData("{\"auth_typ\":\"aad\",\"claims\":{}}")]
    [InlineData("{\"auth_typ\":\"aad\",\"claims\":[{\"typ\":\"oid\",\"val\":7}]}")]
    [InlineData("{\"auth_typ\":\"aad\",\"claims\":[{\"typ\":\"oid\"}]}")]
    [InlineData("{\"auth_typ\":\"aad\",\"auth_typ\":\"aad\",\"claims\":[]}")]
    [InlineData("{\"auth_typ\":\"aad\",\"claims\":[[[[[[\"deep\"]]]]]]}")]
    [InlineData("\u00ff\u00fe not json")]
    public void Read_MalformedJson_IsRefusedWithFixedWords(string json)
    {
        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Convert.ToBase64String(Encoding.UTF8.GetBytes(json))), Options));

        // Assert
        Assert.Equal($"The {PlatformPrincipal.HeaderName} header is not a JSON principal.", rejected.Message);
    }

    [Fact]
    public void Read_PrincipalOverTheBound_IsRefusedNamingTheBound()
    {
        // Arrange: a valid principal padded past 16 KiB with a claim nobody reads.
        var principal = Principal();
        principal["claims"]!.AsArray().Add(Claim("padding", new string('p', 16 * 1024)));

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains(PlatformPrincipal.MaxHeaderLength.ToString(System.Globalization.CultureInfo.InvariantCulture), rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_MoreClaimsThanTheBound_IsRefused()
    {
        // Arrange: short claims, under the length bound, over the count bound.
        var principal = Principal();
        for (var i = 0; i < PlatformPrincipal.MaxClaims; i++)
        {
            principal["claims"]!.AsArray().Add(Claim("g", "x"));
        }

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains(PlatformPrincipal.MaxClaims.ToString(System.Globalization.CultureInfo.InvariantCulture), rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_DuplicatedHeader_IsRefusedAsAnInvalidRequest()
    {
        // Arrange: two principals, one of them a forgery: which is the caller? Neither.
        var context = new DefaultHttpContext();
        context.Request.Headers[PlatformPrincipal.HeaderName] = new Microsoft.Extensions.Primitives.StringValues([Encode(Principal()), Encode(Principal(objectId: "7a1e0000-0000-4000-8000-0000000000aa"))]);

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(context.Request, Options));

        // Assert
        Assert.Equal(Problems.InvalidRequestCode, ProblemAssert.BearerError(rejected));
    }

    [Fact]
    public void Read_TwoObjectIdClaimsThatDiffer_IsRefused()
    {
        // Arrange: two claims naming two callers.
        var principal = Principal();
        principal["claims"]!.AsArray().Add(Claim(ObjectIdLong, "7a1e0000-0000-4000-8000-0000000000aa"));

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.Contains("more than one oid", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_ObjectIdThatIsNotAGuid_IsRefusedWithoutEchoingIt()
    {
        // Arrange
        var principal = Principal(objectId: "<script>admin</script>");

        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(Request(Encode(principal)), Options));

        // Assert
        Assert.DoesNotContain("script", rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_NoPrincipalHeader_IsUnauthenticatedWithoutAnErrorCode()
    {
        // Act
        var rejected = ProblemAssert.Throws(Problems.Types.Unauthenticated, () => PlatformPrincipal.Read(new DefaultHttpContext().Request, Options));

        // Assert: RFC 6750 §3.1, as for a missing bearer token.
        Assert.Null(ProblemAssert.BearerError(rejected));
    }

    [Fact]
    public async Task AuthenticateAsync_PrincipalWithSettingOnButWebsiteAuthEnabledUnset_IsRefusedNamingTheHeader()
    {
        // Arrange: the app's own registration, Auth:PlatformAuthentication on, the platform's authentication off.
        var authenticator = Authenticator(platformAuthentication: true, websiteAuthEnabled: null);

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => authenticator.AuthenticateAsync(Request(Encode(Principal())), AppRoles.Sign, CancellationToken.None).AsTask());

        // Assert
        Assert.Contains(PlatformPrincipal.HeaderName, rejected.Message, StringComparison.Ordinal);
        Assert.Equal(Problems.InvalidRequestCode, ProblemAssert.BearerError(rejected));
    }

    [Fact]
    public async Task AuthenticateAsync_PrincipalWithWebsiteAuthEnabledButSettingOff_IsRefusedNamingTheHeader()
    {
        // Arrange: the platform's authentication on, but the app was never told to trust it.
        var authenticator = Authenticator(platformAuthentication: false, websiteAuthEnabled: "True");

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => authenticator.AuthenticateAsync(Request(Encode(Principal())), AppRoles.Sign, CancellationToken.None).AsTask());

        // Assert
        Assert.Contains(PlatformPrincipal.HeaderName, rejected.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AuthenticateAsync_PrincipalWithSettingAndWebsiteAuthEnabled_ReturnsTheCaller()
    {
        // Arrange
        var authenticator = Authenticator(platformAuthentication: true, websiteAuthEnabled: "True");

        // Act
        var caller = await authenticator.AuthenticateAsync(Request(Encode(Principal())), AppRoles.Sign, CancellationToken.None);

        // Assert
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
    }

    [Fact]
    public async Task AuthenticateAsync_VouchedPrincipalWithoutTheRole_IsRefusedNamingTheRole()
    {
        // Arrange: the same role check as for a token.
        var authenticator = Authenticator(platformAuthentication: true, websiteAuthEnabled: "True");
        var principal = Principal(roles: [AppRoles.Verify]);

        // Act
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.RoleRequired, () => authenticator.AuthenticateAsync(Request(Encode(principal)), AppRoles.Sign, CancellationToken.None).AsTask());

        // Assert
        Assert.Contains($"app role '{AppRoles.Sign}'", refused.Problem.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public void AddWidgetCallers_PlatformAuthenticationWhereTheHostValidatesTokens_FailsAtStartNamingTheSetting()
    {
        // Arrange: a host that registered its own validator (the isolated app registers the Entra one).
        var services = new ServiceCollection().AddLogging();
        services.AddSingleton<ITokenValidator>(new RefusingValidator());
        services.AddWidgetCallers(Configuration(platformAuthentication: true, websiteAuthEnabled: "True"));
        using var provider = services.BuildServiceProvider();

        // Act
        var failed = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<AuthOptions>>().Value);

        // Assert
        Assert.Contains("Auth:PlatformAuthentication", failed.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AddWidgetCallers_PlatformAuthenticationWithDisabled_FailsAtStartNamingBoth()
    {
        // Arrange
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Auth:PlatformAuthentication"] = "true",
            ["Auth:Disabled"] = "true",
            ["Audit:Disabled"] = "true",
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
        }).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetCallers(configuration).BuildServiceProvider();

        // Act
        var failed = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<AuthOptions>>().Value);

        // Assert
        Assert.Contains("Auth:PlatformAuthentication", failed.Message, StringComparison.Ordinal);
        Assert.Contains("Auth:Disabled", failed.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AuthenticateAsync_PrincipalSentToAHostThatValidatesTokens_IsRefusedNamingTheHeader()
    {
        // Arrange: the isolated app's registration (its own validator) with no platform authentication in front.
        var validator = new VerifyOnlyValidator();
        var authenticator = TokenHostAuthenticator(validator, websiteAuthEnabled: null);
        var request = Request(Encode(Principal()));
        request.Headers.Authorization = "Bearer a.b.c";

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => authenticator.AuthenticateAsync(request, AppRoles.Sign, CancellationToken.None).AsTask());

        // Assert
        Assert.Contains(PlatformPrincipal.HeaderName, rejected.Message, StringComparison.Ordinal);
        Assert.Equal(0, validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_PlatformPrincipalBehindThePlatformGateOfAHostThatValidatesTokens_IsNotReadAndTheTokenDecides()
    {
        // Arrange: App Service Authentication in front of the isolated app passes its principal (every role here); the
        // app validates the bearer token itself, which carries only Widgets.Verify.
        var validator = new VerifyOnlyValidator();
        var authenticator = TokenHostAuthenticator(validator, websiteAuthEnabled: "True");
        var request = Request(Encode(Principal()));
        request.Headers.Authorization = "Bearer a.b.c";

        // Act
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.RoleRequired, () => authenticator.AuthenticateAsync(request, AppRoles.Sign, CancellationToken.None).AsTask());

        // Assert
        Assert.Contains($"app role '{AppRoles.Sign}'", refused.Problem.Detail, StringComparison.Ordinal);
        Assert.Equal(1, validator.Calls);
    }

    /// <summary>A principal as App Service Authentication passes it for an Entra access token.</summary>
    internal static JsonObject Principal(
        string objectId = TestIssuer.CallerObjectId,
        string tenantId = TestIssuer.TenantId,
        string? audience = TestIssuer.Audience,
        string[]? roles = null,
        string appIdType = "azp")
    {
        var claims = new JsonArray
        {
            Claim("iss", $"https://login.microsoftonline.com/{tenantId}/v2.0"),
            Claim(ObjectIdLong, objectId),
            Claim(TenantIdLong, tenantId),
            Claim(appIdType, TestIssuer.CallerAppId),
            Claim("ver", "2.0"),
        };
        if (audience is not null)
        {
            claims.Add(Claim("aud", audience));
        }

        foreach (var role in roles ?? [AppRoles.Sign, AppRoles.Verify])
        {
            claims.Add(Claim("roles", role));
        }

        return new JsonObject
        {
            ["auth_typ"] = "aad",
            ["claims"] = claims,
            ["name_typ"] = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name",
            ["role_typ"] = RoleLong,
        };
    }

    internal static string Encode(JsonObject principal) => Convert.ToBase64String(Encoding.UTF8.GetBytes(principal.ToJsonString()));

    private static JsonObject Claim(string type, string value) => new() { ["typ"] = type, ["val"] = value };

    private static HttpRequest Request(string principal)
    {
        var context = new DefaultHttpContext();
        context.Request.Headers[PlatformPrincipal.HeaderName] = principal;
        return context.Request;
    }

    private static IConfiguration Configuration(bool platformAuthentication, string? websiteAuthEnabled) =>
        new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Auth:TenantId"] = TestIssuer.TenantId,
            ["Auth:Audience"] = TestIssuer.Audience,
            ["Auth:PlatformAuthentication"] = platformAuthentication ? "true" : "false",
            [PlatformPrincipal.EnabledVariable] = websiteAuthEnabled,
        }).Build();

    private static CallerAuthenticator Authenticator(bool platformAuthentication, string? websiteAuthEnabled)
    {
        var provider = new ServiceCollection().AddSingleton(NullLoggerFactory.Instance).AddLogging()
            .AddWidgetCallers(Configuration(platformAuthentication, websiteAuthEnabled)).BuildServiceProvider();
        return provider.GetRequiredService<CallerAuthenticator>();
    }

    private static CallerAuthenticator TokenHostAuthenticator(ITokenValidator validator, string? websiteAuthEnabled)
    {
        var services = new ServiceCollection().AddLogging();
        services.AddSingleton(validator);
        return services.AddWidgetCallers(Configuration(platformAuthentication: false, websiteAuthEnabled)).BuildServiceProvider().GetRequiredService<CallerAuthenticator>();
    }

    private sealed class VerifyOnlyValidator : ITokenValidator
    {
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _calls);
            return ValueTask.FromResult(new CallerIdentity(TestIssuer.CallerObjectId, TestIssuer.CallerAppId, TestIssuer.TenantId, [AppRoles.Verify]));
        }
    }

    private sealed class RefusingValidator : ITokenValidator
    {
        public ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken) => throw Problems.Unauthenticated("The bearer token is not valid.");
    }
}
