using System.Globalization;

namespace WidgetSigning.Keys;

/// <summary>
/// Paging through Key Vault's secret list without ever following a link a client supplied: the page token handed out is
/// only Key Vault's <c>$skiptoken</c> value, checked against a bounded, safe character set, and the link the SDK follows
/// is rebuilt from this service's own vault URI.
/// </summary>
internal static class SecretListLink
{
    /// <summary>The longest page token accepted (Key Vault's skip tokens are a few hundred characters).</summary>
    public const int MaxTokenLength = 1024;

    /// <summary>Key Vault's largest <c>maxresults</c>.</summary>
    public const int MaxPageSize = 25;

    private const string SkipToken = "$skiptoken=";

    /// <summary>
    /// Whether <paramref name="token"/> could be a skip token: 1-<see cref="MaxTokenLength"/> characters of base64 and
    /// base64url. No '.', ':', '?', '&amp;', '%' or space, so no host, path step, query or escape can be spelled.
    /// </summary>
    public static bool IsToken(string? token)
    {
        if (token is null || token.Length is 0 or > MaxTokenLength)
        {
            return false;
        }

        foreach (var c in token)
        {
            if (c is not ((>= 'A' and <= 'Z') or (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-' or '_' or '+' or '/' or '='))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The list's page on <paramref name="vault"/>: the first, or the one <paramref name="token"/> (already checked) starts.</summary>
    public static string Build(Uri vault, string? token, int pageSize)
    {
        var query = string.Create(CultureInfo.InvariantCulture, $"secrets?api-version={KeyVaultClientFactory.ApiVersion}&maxresults={Math.Clamp(pageSize, 1, MaxPageSize)}");
        if (token is not null)
        {
            query += "&" + SkipToken + Uri.EscapeDataString(token);
        }

        var root = vault.AbsoluteUri.EndsWith('/') ? vault : new Uri(vault.AbsoluteUri + "/", UriKind.Absolute);
        return new Uri(root, query).AbsoluteUri;
    }

    /// <summary>The skip token in Key Vault's <paramref name="nextLink"/>; null on the last page.</summary>
    /// <exception cref="InvalidOperationException">The link is not a secret-list link on <paramref name="vault"/> with a valid skip token.</exception>
    public static string? TokenOf(Uri vault, string? nextLink)
    {
        if (string.IsNullOrEmpty(nextLink))
        {
            return null;
        }

        if (!Uri.TryCreate(nextLink, UriKind.Absolute, out var link) ||
            !string.Equals(link.Scheme, vault.Scheme, StringComparison.OrdinalIgnoreCase) ||
            !string.Equals(link.IdnHost, vault.IdnHost, StringComparison.OrdinalIgnoreCase) ||
            link.Port != vault.Port)
        {
            throw new InvalidOperationException("Key Vault's secret list named a next page on another host.");
        }

        // Split by hand: a form decoder would turn a base64 '+' into a space.
        foreach (var pair in link.Query.TrimStart('?').Split('&'))
        {
            if (pair.StartsWith(SkipToken, StringComparison.OrdinalIgnoreCase))
            {
                var token = Uri.UnescapeDataString(pair[SkipToken.Length..]);
                return IsToken(token) ? token : throw new InvalidOperationException("Key Vault's secret list handed out a skip token this service does not accept.");
            }
        }

        throw new InvalidOperationException("Key Vault's secret list named a next page without a skip token.");
    }
}
