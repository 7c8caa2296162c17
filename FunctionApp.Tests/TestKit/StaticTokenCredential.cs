using Azure.Core;

namespace FunctionApp.Tests.TestKit;

/// <summary>A credential double: the token is not what these tests are about, the SecretClient's real calls are.</summary>
public sealed class StaticTokenCredential : TokenCredential
{
    public StaticTokenCredential(string token) => Token = token;

    public string Token { get; }

    public List<string> RequestedScopes { get; } = [];

    /// <summary>How long each token lives; zero makes the client ask for a token on every call.</summary>
    public TimeSpan Lifetime { get; set; } = TimeSpan.FromHours(1);

    /// <summary>When true, no token can be had, as when the managed identity was deleted.</summary>
    public bool IdentityDeleted { get; set; }

    public override AccessToken GetToken(TokenRequestContext requestContext, CancellationToken cancellationToken)
    {
        lock (RequestedScopes)
        {
            RequestedScopes.AddRange(requestContext.Scopes);
        }

        if (IdentityDeleted)
        {
            throw new Azure.Identity.AuthenticationFailedException("ManagedIdentityCredential authentication failed: Identity not found.");
        }

        return new AccessToken(Token, DateTimeOffset.UtcNow + Lifetime);
    }

    public override ValueTask<AccessToken> GetTokenAsync(TokenRequestContext requestContext, CancellationToken cancellationToken) =>
        ValueTask.FromResult(GetToken(requestContext, cancellationToken));
}
