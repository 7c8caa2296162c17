using System.Globalization;
using Microsoft.IdentityModel.Protocols;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// Fetches the issuer's OpenID configuration and JWKS: one GET each, no retry (a retry is <see cref="IssuerKeys"/>'s to
/// decide), https unless on loopback (the local issuer), the body at most 1 MiB, and a failure in fixed words naming the
/// address and what went wrong (the address is the issuer's, never a caller's).
/// </summary>
internal sealed class IssuerDocumentRetriever(HttpClient http) : IDocumentRetriever
{
    public async Task<string> GetDocumentAsync(string address, CancellationToken cancel)
    {
        if (!Uri.TryCreate(address, UriKind.Absolute, out var uri) || !(uri.Scheme == Uri.UriSchemeHttps || (uri.Scheme == Uri.UriSchemeHttp && uri.IsLoopback)))
        {
            throw new IOException($"The issuer named a document address that is not https: {EchoText.Of(address, 200)}.");
        }

        try
        {
            using var response = await http.GetAsync(uri, HttpCompletionOption.ResponseContentRead, cancel).ConfigureAwait(false);
            if (!response.IsSuccessStatusCode)
            {
                throw new IOException(string.Create(CultureInfo.InvariantCulture, $"{uri.AbsoluteUri} answered HTTP {(int)response.StatusCode}."));
            }

            return await response.Content.ReadAsStringAsync(cancel).ConfigureAwait(false);
        }
        catch (HttpRequestException e)
        {
            throw new IOException($"{uri.AbsoluteUri} could not be read: {e.Message}", e);
        }
        catch (TaskCanceledException e) when (!cancel.IsCancellationRequested)
        {
            throw new TimeoutException(string.Create(CultureInfo.InvariantCulture, $"{uri.AbsoluteUri} did not answer within {http.Timeout.TotalSeconds:0} s."), e);
        }
    }
}
