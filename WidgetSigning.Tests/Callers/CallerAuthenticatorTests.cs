using FunctionApp.Tests.TestKit;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Primitives;
using WidgetSigning.Tests.Support;
using WidgetSigning.Callers;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Callers;

/// <summary>
/// <see cref="CallerAuthenticator"/>: what it refuses before any validator runs (counted by a fake that would accept
/// anything), and the app role it checks on a real validated token.
/// </summary>
public sealed class CallerAuthenticatorTests
{
    private readonly CountingValidator _validator = new();

    [Fact]
    public async Task AuthenticateAsync_NoAuthorizationHeader_IsRejectedWithoutAnErrorCode()
    {
        // Arrange
        var request = Request();

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert: RFC 6750 §3.1, no error code when the request had no credentials.
        Assert.Null(ProblemAssert.BearerError(rejected));
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_TwoAuthorizationHeaders_IsRejectedAsAnInvalidRequest()
    {
        // Arrange: which one would be the caller? Neither.
        var request = Request(new StringValues(["Bearer " + Jws(), "Bearer " + Jws()]));

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Equal(Problems.InvalidRequestCode, ProblemAssert.BearerError(rejected));
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_TwoAuthorizationHeadersJoinedOnOneLine_IsRejectedAsMoreThanOne()
    {
        // Arrange: a host that folds repeated header lines passes them on as one comma-joined value.
        var request = Request("Bearer " + Jws() + ", Bearer " + Jws());

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Equal(Problems.InvalidRequestCode, ProblemAssert.BearerError(rejected));
        Assert.Contains("more than one Authorization header", rejected.Message, StringComparison.Ordinal);
        Assert.Equal(0, _validator.Calls);
    }

    [Theory]
    [InlineData("Basic dXNlcjpwYXNzd29yZA==")]
    [InlineData("Negotiate YIIBnwYGKwYBBQUCoIIBkzCCAY8")]
    [InlineData("Bearer")]
    public async Task AuthenticateAsync_SchemeOtherThanBearer_IsRejectedAsAnInvalidRequest(string authorization)
    {
        // Arrange
        var request = Request(authorization);

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Equal(Problems.InvalidRequestCode, ProblemAssert.BearerError(rejected));
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_FortyKilobyteToken_IsRefusedBeforeTheValidatorRuns()
    {
        // Arrange: three base64url segments, 40 KB in all.
        var token = new string('A', 20 * 1024) + "." + new string('B', 20 * 1024) + ".CCCC";
        var request = Request("Bearer " + token);

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Equal(Problems.InvalidTokenCode, ProblemAssert.BearerError(rejected));
        Assert.Contains(AuthOptions.MaxAuthorizationLength.ToString(System.Globalization.CultureInfo.InvariantCulture), rejected.Message, StringComparison.Ordinal);
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_AlgNoneShapeWithEmptySignature_IsRefusedBeforeTheValidatorRuns()
    {
        // Arrange: header.payload. (an unsigned JWT)
        var token = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJvaWQiOiI3YTFlMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMGMifQ.";
        var request = Request("Bearer " + token);

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.DoesNotContain(token, rejected.Message, StringComparison.Ordinal);
        Assert.Equal(0, _validator.Calls);
    }

    [Theory]
    [InlineData("a.b")]
    [InlineData("a.b.c.d")]
    [InlineData("a..c")]
    [InlineData("a.b+/.c")]
    [InlineData("a.b.c=")]
    public async Task AuthenticateAsync_NotThreeBase64UrlSegments_IsRefusedBeforeTheValidatorRuns(string token)
    {
        // Arrange
        var request = Request("Bearer " + token);

        // Act + Assert
        await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));
        Assert.Equal(0, _validator.Calls);
    }

    [Theory]
    [InlineData("X-MS-CLIENT-PRINCIPAL", "eyJhdXRoX3R5cCI6ImFhZCIsImNsYWltcyI6W3sidHlwIjoicm9sZXMiLCJ2YWwiOiJXaWRnZXRzLlNpZ24ifV19")]
    [InlineData("X-MS-CLIENT-PRINCIPAL-ID", "7a1e0000-0000-4000-8000-00000000000c")]
    [InlineData("X-MS-CLIENT-PRINCIPAL-NAME", "admin@contoso.com")]
    [InlineData("x-ms-client-principal-idp", "aad")]
    public async Task AuthenticateAsync_ForgedPlatformPrincipalHeaderWithoutToken_IsRefusedNamingTheHeader(string header, string value)
    {
        // Arrange: headers App Service Authentication would add, sent by the client itself to a host that validates tokens.
        var request = Request();
        request.Headers[header] = value;

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Equal(Problems.InvalidRequestCode, ProblemAssert.BearerError(rejected));
        Assert.Contains(PlatformPrincipal.HeaderName, rejected.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(value, rejected.Message, StringComparison.Ordinal);
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_ForgedPlatformPrincipalBesideAValidToken_IsRefusedAndNothingValidated()
    {
        // Arrange: a well-formed token and a principal naming every role; the principal must not ride along.
        var request = Request("Bearer " + Jws());
        request.Headers[PlatformPrincipal.HeaderName] = "eyJhdXRoX3R5cCI6ImFhZCIsImNsYWltcyI6W3sidHlwIjoicm9sZXMiLCJ2YWwiOiJXaWRnZXRzLlNpZ24ifV19";

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Contains(PlatformPrincipal.HeaderName, rejected.Message, StringComparison.Ordinal);
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_ProviderTokenHeaderWithoutToken_IsStillUnauthenticated()
    {
        // Arrange: X-MS-TOKEN-AAD-ACCESS-TOKEN is the platform's token store (off here); never read, so no caller.
        var request = Request();
        request.Headers["X-MS-TOKEN-AAD-ACCESS-TOKEN"] = "eyJ0eXAiOiJKV1QifQ.eyJvaWQiOiJ4In0.c2ln";

        // Act
        var rejected = await ProblemAssert.ThrowsAsync(Problems.Types.Unauthenticated, () => Authenticate(request));

        // Assert
        Assert.Null(ProblemAssert.BearerError(rejected));
        Assert.Equal(0, _validator.Calls);
    }

    [Fact]
    public async Task AuthenticateAsync_WellFormedBearerToken_IsValidatedOnceAndReturnsTheCaller()
    {
        // Arrange: the scheme name is case-insensitive (RFC 9110 §11.1).
        var token = Jws();
        var request = Request("bearer " + token);

        // Act
        var caller = await Authenticate(request);

        // Assert
        Assert.Equal(1, _validator.Calls);
        Assert.Equal(token, _validator.LastToken);
        Assert.Equal(TestIssuer.CallerObjectId, caller.ObjectId);
    }

    [Fact]
    public async Task AuthenticateAsync_VerifyOnlyTokenToSign_IsRefusedNamingTheSignRole()
    {
        // Arrange: a real token, validated against a real issuer, that carries only Widgets.Verify.
        await using var issuer = await TestIssuer.StartAsync();
        using var validator = EntraTokenValidatorTests.Validator(issuer);
        var authenticator = new CallerAuthenticator(validator, Options.Create(new AuthOptions { Audience = TestIssuer.Audience, Authority = issuer.Authority }));
        var request = Request("Bearer " + issuer.Mint(null, AppRoles.Verify));

        // Act
        var refused = await ProblemAssert.ThrowsAsync(Problems.Types.RoleRequired, () => authenticator.AuthenticateAsync(request, AppRoles.Sign, CancellationToken.None).AsTask());

        // Assert
        Assert.Contains($"app role '{AppRoles.Sign}'", refused.Problem.Detail, StringComparison.Ordinal);
        Assert.Contains(AppRoles.Sign, refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AuthenticateAsync_VerifyOnlyTokenToVerify_ReturnsTheCaller()
    {
        // Arrange
        await using var issuer = await TestIssuer.StartAsync();
        using var validator = EntraTokenValidatorTests.Validator(issuer);
        var authenticator = new CallerAuthenticator(validator, Options.Create(new AuthOptions { Audience = TestIssuer.Audience, Authority = issuer.Authority }));
        var request = Request("Bearer " + issuer.Mint(null, AppRoles.Verify));

        // Act
        var caller = await authenticator.AuthenticateAsync(request, AppRoles.Verify, CancellationToken.None);

        // Assert
        Assert.Equal([AppRoles.Verify], caller.Roles);
    }

    private static string Jws() => "eyJhbGciOiJSUzI1NiJ9.eyJvaWQiOiJ4In0.c2lnbmF0dXJl";

    private static HttpRequest Request(StringValues? authorization = null)
    {
        var context = new DefaultHttpContext();
        if (authorization is { } value)
        {
            context.Request.Headers.Authorization = value;
        }

        return context.Request;
    }

    private Task<CallerIdentity> Authenticate(HttpRequest request) =>
        new CallerAuthenticator(_validator, Options.Create(new AuthOptions { Audience = TestIssuer.Audience, TenantId = TestIssuer.TenantId }))
            .AuthenticateAsync(request, AppRoles.Sign, CancellationToken.None).AsTask();

    /// <summary>Accepts any token with every role, and counts the calls: a refusal before it leaves the count at 0.</summary>
    private sealed class CountingValidator : ITokenValidator
    {
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public string? LastToken { get; private set; }

        public ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _calls);
            LastToken = token;
            return ValueTask.FromResult(new CallerIdentity(TestIssuer.CallerObjectId, TestIssuer.CallerAppId, TestIssuer.TenantId, AppRoles.All));
        }
    }
}
