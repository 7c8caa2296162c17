namespace WidgetSigning.Callers;

/// <summary>What <see cref="CallerAuthenticator"/> does with <c>X-MS-CLIENT-PRINCIPAL*</c> headers.</summary>
internal enum PlatformPrincipalPolicy
{
    /// <summary>
    /// Refused with 401 naming the header: App Service Authentication is off (or not trusted), so a client sent it.
    /// </summary>
    Refuse,

    /// <summary>
    /// Not read: App Service Authentication is on (<c>WEBSITE_AUTH_ENABLED=True</c>), so the platform set the header and
    /// stripped any a client sent, and this host validates the bearer token itself (the isolated app).
    /// </summary>
    Ignore,

    /// <summary>
    /// The caller: App Service Authentication is on and <c>Auth:PlatformAuthentication</c> says this host relies on it
    /// (the in-process app, which cannot validate tokens).
    /// </summary>
    Read,
}
