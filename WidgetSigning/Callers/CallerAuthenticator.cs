using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>
/// Who is calling and may they: reads the one <c>Authorization: Bearer</c> header (bounded, one value, base64url
/// segments), has the <see cref="ITokenValidator"/> validate it and checks the endpoint's app role. Where App Service
/// Authentication vouches for it (<see cref="PlatformPrincipal.IsVouchedFor"/>: the in-process app), the caller is the
/// principal the platform passes instead (<see cref="PlatformPrincipal"/>). Where the platform's authentication is on and
/// the host validates tokens itself, the platform's headers are not read; everywhere else a request that carries
/// <c>X-MS-CLIENT-PRINCIPAL</c> or <c>X-MS-CLIENT-PRINCIPAL-*</c> is refused: only the platform may set them
/// (<see cref="PlatformPrincipalPolicy"/>).
/// </summary>
internal sealed class CallerAuthenticator
{
    private const string Scheme = "Bearer ";

    private readonly ITokenValidator _validator;
    private readonly AuthOptions _options;
    private readonly PlatformPrincipalPolicy _policy;

    /// <summary>Creates the authenticator of a host that validates bearer tokens itself.</summary>
    public CallerAuthenticator(ITokenValidator validator, IOptions<AuthOptions> options)
        : this(validator, options, PlatformPrincipalPolicy.Refuse)
    {
    }

    /// <summary>
    /// Creates the authenticator (a singleton in DI); <paramref name="policy"/> says what the platform's principal
    /// headers are here (<see cref="CallerServiceCollectionExtensions.AddWidgetCallers"/> decides it at start).
    /// </summary>
    public CallerAuthenticator(ITokenValidator validator, IOptions<AuthOptions> options, PlatformPrincipalPolicy policy)
    {
        ArgumentNullException.ThrowIfNull(options);
        _validator = validator;
        _options = options.Value;
        _policy = policy;
    }

    /// <summary>The caller of <paramref name="request"/>, whatever its roles (<see cref="RequireRole"/> checks one).</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.Unauthenticated"/>: no token, or not a valid one (401).</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.AuthUnavailable"/>: the issuer's keys could not be obtained (503).</exception>
    public async ValueTask<CallerIdentity> IdentifyAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (_options.Disabled)
        {
            return CallerIdentity.Development;
        }

        CallerIdentity caller;
        if (_policy == PlatformPrincipalPolicy.Read)
        {
            caller = PlatformPrincipal.Read(request, _options);
        }
        else
        {
            // Only App Service Authentication may set these, and it does not vouch for them here: a client sent them.
            if (_policy == PlatformPrincipalPolicy.Refuse && PlatformPrincipal.IsPresent(request))
            {
                throw Problems.Unauthenticated($"The request carries {PlatformPrincipal.HeaderName} headers, which only App Service Authentication may set; this app does not accept them. Send only 'Authorization: Bearer <token>'.", Problems.InvalidRequestCode);
            }

            var token = ReadBearerToken(request);
            caller = await _validator.ValidateAsync(token, cancellationToken).ConfigureAwait(false);
        }

        return caller;
    }

    /// <summary>
    /// <paramref name="caller"/>, who holds <paramref name="role"/>. Apart from <see cref="IdentifyAsync"/> so that a
    /// caller refused for a role it lacks is known to whoever audits the refusal.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.RoleRequired"/>: <paramref name="caller"/> lacks <paramref name="role"/> (403).</exception>
    public static CallerIdentity RequireRole(CallerIdentity caller, string role)
    {
        ArgumentNullException.ThrowIfNull(caller);
        ArgumentException.ThrowIfNullOrEmpty(role);
        return caller.HasRole(role) ? caller : throw Problems.RoleRequired(role);
    }

    /// <summary>The token of the request's one <c>Authorization: Bearer</c> header, checked for shape only.</summary>
    internal static string ReadBearerToken(HttpRequest request)
    {
        var values = request.Headers.Authorization;
        if (values.Count == 0)
        {
            throw Problems.Unauthenticated("The request has no Authorization header; send an Entra access token for this app as 'Authorization: Bearer <token>'.", errorCode: null);
        }

        // Repeated header lines may reach us as one comma-joined value (a host may fold them); a JWS never
        // holds a comma, so a comma means more than one header all the same.
        if (values.Count > 1 || (values[0] ?? string.Empty).Contains(',', StringComparison.Ordinal))
        {
            throw Problems.Unauthenticated("The request has more than one Authorization header.", Problems.InvalidRequestCode);
        }

        var value = values[0] ?? string.Empty;
        if (value.Length > AuthOptions.MaxAuthorizationLength)
        {
            throw Problems.Unauthenticated($"The Authorization header is longer than {AuthOptions.MaxAuthorizationLength} characters.");
        }

        if (!value.StartsWith(Scheme, StringComparison.OrdinalIgnoreCase))
        {
            throw Problems.Unauthenticated("The Authorization header must use the Bearer scheme.", Problems.InvalidRequestCode);
        }

        var token = value.AsSpan(Scheme.Length).Trim(' ');
        return IsJwsShape(token) ? token.ToString() : throw Problems.Unauthenticated("The bearer token is not a JSON Web Token (three base64url segments).");
    }

    // Three non-empty base64url segments: anything else is refused before a parser sees it.
    private static bool IsJwsShape(ReadOnlySpan<char> token)
    {
        var dots = 0;
        var segmentLength = 0;
        foreach (var c in token)
        {
            if (c == '.')
            {
                if (segmentLength == 0)
                {
                    return false;
                }

                dots++;
                segmentLength = 0;
            }
            else if (char.IsAsciiLetterOrDigit(c) || c is '-' or '_')
            {
                segmentLength++;
            }
            else
            {
                return false;
            }
        }

        return dots == 2 && segmentLength > 0;
    }
}
