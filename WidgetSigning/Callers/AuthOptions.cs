using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Callers;

/// <summary>
/// Who may call the HTTP functions (configuration section <c>Auth</c>): Microsoft Entra access tokens of one tenant for
/// this app's registration. Validated at start: the app refuses to start without <see cref="TenantId"/> and
/// <see cref="Audience"/>, and <see cref="Disabled"/> is accepted only on a developer's machine.
/// </summary>
public sealed class AuthOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Auth";

    /// <summary>The longest <c>Authorization</c> header value read, in characters. Entra access tokens are a few KB; a group-overage token stays under 8 KB.</summary>
    public const int MaxAuthorizationLength = 16 * 1024;

    /// <summary>Entra's public-cloud login endpoint, the default authority's base.</summary>
    public const string EntraInstance = "https://login.microsoftonline.com/";

    private const string Prefix = SectionName + ":";

    /// <summary>The tenant whose tokens are accepted (a GUID). Setting: <c>Auth:TenantId</c>. No default; required whenever authentication is on, with the local issuer too: every token's <c>tid</c> must be it.</summary>
    [RegularExpression("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", ErrorMessage = Prefix + "{0} must be the tenant id, a GUID.")]
    public string? TenantId { get; set; }

    /// <summary>
    /// The app registration's client id (a GUID): the <c>aud</c> of the v2 access tokens Entra issues for the app.
    /// Setting: <c>Auth:Audience</c>. No default; required.
    /// </summary>
    [RegularExpression("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", ErrorMessage = Prefix + "{0} must be the app registration's client id, a GUID.")]
    public string? Audience { get; set; }

    /// <summary>
    /// The app's Application ID URI (such as <c>api://widget-signing</c>), also accepted as <c>aud</c> (v1 tokens carry
    /// it). Setting: <c>Auth:AppIdUri</c>. Optional.
    /// </summary>
    [MaxLength(200, ErrorMessage = Prefix + "{0} must be at most {1} characters.")]
    public string? AppIdUri { get; set; }

    /// <summary>
    /// The OpenID Connect authority whose <c>/.well-known/openid-configuration</c> gives the issuer and signing keys.
    /// Setting: <c>Auth:Authority</c>. Default <c>https://login.microsoftonline.com/{TenantId}/v2.0</c>; <c>http://</c>
    /// only for a loopback issuer outside Azure (the local issuer of <c>npm start</c>).
    /// </summary>
    [MaxLength(300, ErrorMessage = Prefix + "{0} must be at most {1} characters.")]
    public string? Authority { get; set; }

    /// <summary>How far a token's <c>exp</c>/<c>nbf</c> may be off this clock. Setting: <c>Auth:ClockSkew</c>. Default 2 minutes, at most 5.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:05:00", ParseLimitsInInvariantCulture = true, ErrorMessage = Prefix + "{0} must be between {1} and {2}.")]
    public TimeSpan ClockSkew { get; set; } = TimeSpan.FromMinutes(2);

    /// <summary>
    /// Skips token validation and grant checks, for tests and tools on a developer's machine only: refused at start in
    /// Azure and unless <c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c>. Setting: <c>Auth:Disabled</c>. Default false.
    /// </summary>
    public bool Disabled { get; set; }

    /// <summary>
    /// Callers come from App Service Authentication (the in-process app, which cannot validate tokens itself): the
    /// principal the platform passes in <c>X-MS-CLIENT-PRINCIPAL</c> is read, and only while the platform also says its
    /// authentication is on (<c>WEBSITE_AUTH_ENABLED=True</c>). Refused at start in the isolated app, which validates
    /// tokens itself, and with <see cref="Disabled"/>. Setting: <c>Auth:PlatformAuthentication</c>. Default false.
    /// </summary>
    public bool PlatformAuthentication { get; set; }

    /// <summary>The authority in force: <see cref="Authority"/>, or Entra's v2 endpoint of <see cref="TenantId"/>.</summary>
    public string? EffectiveAuthority => !string.IsNullOrWhiteSpace(Authority)
        ? Authority.TrimEnd('/')
        : string.IsNullOrWhiteSpace(TenantId) ? null : $"{EntraInstance}{TenantId}/v2.0";

    /// <summary>Whether the authority is Entra's (not an override such as the local issuer).</summary>
    public bool IsEntraAuthority => string.IsNullOrWhiteSpace(Authority);

    /// <summary>The audiences accepted: <see cref="Audience"/> and, when set, <see cref="AppIdUri"/>.</summary>
    public IReadOnlyList<string> Audiences =>
        [.. new[] { Audience, AppIdUri }.Where(a => !string.IsNullOrWhiteSpace(a)).Select(a => a!)];
}
