using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>A self-signed certificate for 127.0.0.1, made in memory for one test server.</summary>
public static class TestCertificate
{
    public static X509Certificate2 CreateForLoopback()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=127.0.0.1", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1));

        // Round-trip through PKCS#12 so the private key is usable by the TLS stack on every platform.
        return new X509Certificate2(certificate.Export(X509ContentType.Pkcs12));
    }
}
