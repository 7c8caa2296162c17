using System.Security.Cryptography;
using Microsoft.IdentityModel.Tokens;

namespace LocalIssuer;

/// <summary>
/// The issuer's RSA-2048 signing key, generated in memory at each start and never written anywhere: a token outlives
/// its issuer's process only until the app next fetches the key set (it then refuses the old key's tokens).
/// </summary>
internal sealed class SigningKey : IDisposable
{
    private readonly RSA _rsa = RSA.Create(2048);

    /// <summary>Creates a fresh key; its id is the public key's JWK thumbprint (RFC 7638), as Entra's key ids are opaque.</summary>
    public SigningKey()
    {
        var publicKey = new RsaSecurityKey(_rsa.ExportParameters(includePrivateParameters: false));
        var keyId = Base64UrlEncoder.Encode(publicKey.ComputeJwkThumbprint());
        publicKey.KeyId = keyId;
        PublicJwk = JsonWebKeyConverter.ConvertFromRSASecurityKey(publicKey);
        PublicJwk.Use = JsonWebKeyUseNames.Sig;
        PublicJwk.Alg = SecurityAlgorithms.RsaSha256;
        Credentials = new SigningCredentials(new RsaSecurityKey(_rsa) { KeyId = keyId }, SecurityAlgorithms.RsaSha256);
    }

    /// <summary>What tokens are signed with (RS256, with the key id in each token's header).</summary>
    public SigningCredentials Credentials { get; }

    /// <summary>The public half as a JSON Web Key (kty, use, kid, alg, n, e): what the key set publishes.</summary>
    public JsonWebKey PublicJwk { get; }

    /// <inheritdoc />
    public void Dispose() => _rsa.Dispose();
}
