using System.Security.Cryptography.X509Certificates;
using System.Text;
using Azure.Core;
using Azure.Core.Pipeline;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Azurite in OAuth mode (<c>--oauth basic</c>, which needs HTTPS: a certificate made for this run): requests must
/// carry a bearer token for <c>https://storage.azure.com</c> from an Azure AD issuer, as identity-based connections send.
/// </summary>
public sealed class AzuriteOAuthFixture : AzuriteFixture
{
    private readonly X509Certificate2 _certificate = TestCertificate.CreateForLoopback();

    /// <summary>A transport that trusts exactly this run's certificate.</summary>
    public HttpPipelineTransport Transport => new HttpClientTransport(new HttpClientHandler
    {
        ServerCertificateCustomValidationCallback = (_, certificate, _, _) => certificate?.Thumbprint == _certificate.Thumbprint,
    });

    /// <summary>A credential whose token Azurite's basic OAuth check accepts (it checks issuer, audience and lifetime, not the signature).</summary>
    public TokenCredential Credential { get; } = new StaticTokenCredential(CreateToken());

    protected override string Scheme => "https";

    protected override IEnumerable<string> ExtraArguments(string workspace)
    {
        var cert = Path.Combine(workspace, "cert.pem");
        var key = Path.Combine(workspace, "key.pem");
        File.WriteAllText(cert, _certificate.ExportCertificatePem());
        File.WriteAllText(key, _certificate.GetECDsaPrivateKey()!.ExportPkcs8PrivateKeyPem());
        return ["--oauth", "basic", "--cert", cert, "--key", key];
    }

    private static string CreateToken()
    {
        var now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        var header = Base64Url("{\"alg\":\"none\",\"typ\":\"JWT\"}");
        var payload = Base64Url(
            $"{{\"aud\":\"https://storage.azure.com\",\"iss\":\"https://sts.windows.net/{Guid.Empty}/\",\"iat\":{now - 60},\"nbf\":{now - 60},\"exp\":{now + 7200}}}");
        return header + "." + payload + ".";
    }

    private static string Base64Url(string json) => Convert.ToBase64String(Encoding.UTF8.GetBytes(json)).TrimEnd('=').Replace('+', '-').Replace('/', '_');
}
