using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>
/// The validator of a host that cannot validate Entra tokens (the in-process app without App Service Authentication: its host pins
/// Microsoft.IdentityModel 7.1, below any version this project can take): every token is refused, so the host fails
/// closed. The isolated app registers the Entra validator instead.
/// </summary>
internal sealed class UnavailableTokenValidator : ITokenValidator
{
    public ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken) =>
        throw Problems.Unauthenticated("This host cannot validate Entra tokens and App Service Authentication is not on for it (Auth:PlatformAuthentication, WEBSITE_AUTH_ENABLED); call the isolated app.");
}
