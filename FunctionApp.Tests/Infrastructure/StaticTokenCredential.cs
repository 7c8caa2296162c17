using Azure.Core;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>A credential double: the token is not what these tests are about, the SecretClient's real calls are.</summary>
public sealed class StaticTokenCredential : TokenCredential
{
    public StaticTokenCredential(string token) => Token = token;

    public string Token { get; }

    public List<string> RequestedScopes { get; } = [];

    public override AccessToken GetToken(TokenRequestContext requestContext, CancellationToken cancellationToken)
    {
        lock (RequestedScopes)
        {
            RequestedScopes.AddRange(requestContext.Scopes);
        }

        return new AccessToken(Token, DateTimeOffset.UtcNow.AddHours(1));
    }

    public override ValueTask<AccessToken> GetTokenAsync(TokenRequestContext requestContext, CancellationToken cancellationToken) =>
        ValueTask.FromResult(GetToken(requestContext, cancellationToken));
}
