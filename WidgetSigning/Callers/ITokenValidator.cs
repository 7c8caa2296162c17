using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>Validates a bearer token and says who it names. The Entra implementation lives in <c>WidgetSigning.Entra</c>.</summary>
internal interface ITokenValidator
{
    /// <summary>Validates <paramref name="token"/> (its signature, issuer, audience, lifetime and type) and returns its caller.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.Unauthenticated"/>: the token is not valid for this app; the reason is fixed text, never the token.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.AuthUnavailable"/>: the issuer's signing keys could not be obtained.</exception>
    ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken);
}
