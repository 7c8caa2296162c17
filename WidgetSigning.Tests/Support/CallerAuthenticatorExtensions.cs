using Microsoft.AspNetCore.Http;
using WidgetSigning.Callers;

namespace WidgetSigning.Tests.Support;

/// <summary>The caller checks as <c>HttpOperation</c> runs them: identify, then require the endpoint's role.</summary>
internal static class CallerAuthenticatorExtensions
{
    /// <summary>The caller of <paramref name="request"/>, who holds <paramref name="role"/>.</summary>
    public static async ValueTask<CallerIdentity> AuthenticateAsync(this CallerAuthenticator authenticator, HttpRequest request, string role, CancellationToken cancellationToken) =>
        CallerAuthenticator.RequireRole(await authenticator.IdentifyAsync(request, cancellationToken).ConfigureAwait(false), role);
}
