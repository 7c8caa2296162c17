using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Callers;

/// <summary>
/// Who is calling and may they: reads the one <c>Authorization: Bearer</c> header (bounded, one value, base64url
/// segments), has the <see cref="ITokenValidator"/> validate it and checks the endpoint's app role. Headers a platform
/// front end might add (<c>X-MS-CLIENT-PRINCIPAL</c> and the like) are never read: a client can send them too.
/// </summary>
public sealed class CallerAuthenticator
{
    private const string Scheme = "Bearer ";

    private readonly ITokenValidator _validator;
    private readonly AuthOptions _options;

    /// <summary>Creates the authenticator (a singleton in DI).</summary>
    public CallerAuthenticator(ITokenValidator validator, IOptions<AuthOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _validator = validator;
        _options = options.Value;
    }

    /// <summary>The caller of <paramref name="request"/>, who holds <paramref name="role"/>.</summary>
    /// <exception cref="TokenRejectedException">No token, or not a valid one (401).</exception>
    /// <exception cref="RoleRequiredException">A valid token without <paramref name="role"/> (403).</exception>
    /// <exception cref="TokenValidationUnavailableException">The issuer's keys could not be obtained (503).</exception>
    public async ValueTask<CallerIdentity> AuthenticateAsync(HttpRequest request, string role, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentException.ThrowIfNullOrEmpty(role);
        if (_options.Disabled)
        {
            return CallerIdentity.Development;
        }

        var token = ReadBearerToken(request);
        var caller = await _validator.ValidateAsync(token, cancellationToken).ConfigureAwait(false);
        return caller.HasRole(role) ? caller : throw new RoleRequiredException(role, caller);
    }

    /// <summary>The token of the request's one <c>Authorization: Bearer</c> header, checked for shape only.</summary>
    internal static string ReadBearerToken(HttpRequest request)
    {
        var values = request.Headers.Authorization;
        if (values.Count == 0)
        {
            throw new TokenRejectedException("The request has no Authorization header; send an Entra access token for this app as 'Authorization: Bearer <token>'.", errorCode: null);
        }

        // Repeated header lines may reach us as one comma-joined value (a host may fold them); a JWS never
        // holds a comma, so a comma means more than one header all the same.
        if (values.Count > 1 || (values[0] ?? string.Empty).Contains(',', StringComparison.Ordinal))
        {
            throw new TokenRejectedException("The request has more than one Authorization header.", TokenRejectedException.InvalidRequest);
        }

        var value = values[0] ?? string.Empty;
        if (value.Length > AuthOptions.MaxAuthorizationLength)
        {
            throw new TokenRejectedException($"The Authorization header is longer than {AuthOptions.MaxAuthorizationLength} characters.");
        }

        if (!value.StartsWith(Scheme, StringComparison.OrdinalIgnoreCase))
        {
            throw new TokenRejectedException("The Authorization header must use the Bearer scheme.", TokenRejectedException.InvalidRequest);
        }

        var token = value.AsSpan(Scheme.Length).Trim(' ');
        return IsJwsShape(token) ? token.ToString() : throw new TokenRejectedException("The bearer token is not a JSON Web Token (three base64url segments).");
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
