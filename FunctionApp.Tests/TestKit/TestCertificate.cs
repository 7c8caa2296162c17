using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace FunctionApp.Tests.TestKit;

/// <summary>A self-signed certificate for 127.0.0.1 (and any host names given), made in memory for one test server.</summary>
public static class TestCertificate
{
    public static X509Certificate2 CreateForLoopback() => Create();

    /// <summary>
    /// For 127.0.0.1 and <paramref name="dnsNames"/> (wildcards allowed), e.g. a fake service reached under its public
    /// name through a tunnel. A process that trusts it (its PEM in <c>SSL_CERT_FILE</c>) takes it as its own root.
    /// </summary>
    public static X509Certificate2 Create(params string[] dnsNames)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest(dnsNames.Length > 0 ? "CN=" + dnsNames[0] : "CN=127.0.0.1", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        foreach (var name in dnsNames)
        {
            names.AddDnsName(name);
        }

        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1));

        // Round-trip through PKCS#12 so the private key is usable by the TLS stack on every platform.
        return new X509Certificate2(certificate.Export(X509ContentType.Pkcs12));
    }
}
