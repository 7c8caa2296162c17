namespace LocalIssuer;

/// <summary>
/// The local tenant the issuer serves and the local app registration its tokens are for: the values the app's local
/// settings name (<c>Auth:TenantId</c>, <c>Auth:Audience</c>, <c>Auth:AppIdUri</c>) and the default local caller.
/// </summary>
internal static class LocalTenant
{
    /// <summary>The only tenant the issuer knows; any other in a path is a 404.</summary>
    public const string TenantId = "7a1e0000-0000-4000-8000-000000000001";

    /// <summary>The local app registration's client id: the <c>aud</c> of every token, as in Entra v2 access tokens.</summary>
    public const string Audience = "7a1e0000-0000-4000-8000-000000000002";

    /// <summary>The local app registration's Application ID URI, accepted in <c>scope</c> like the client id.</summary>
    public const string AppIdUri = "api://widget-signing-local";

    /// <summary>The default local caller's object id (<c>oid</c>, and <c>sub</c> of an app-only token).</summary>
    public const string DefaultCallerObjectId = "7a1e0000-0000-4000-8000-00000000000c";

    /// <summary>The default local caller's client id (<c>azp</c>).</summary>
    public const string DefaultCallerClientId = "7a1e0000-0000-4000-8000-00000000000d";

    /// <summary>The app roles the app registration defines; a token carries all of them unless the request narrows it.</summary>
    public static readonly IReadOnlyList<string> Roles = ["Widgets.Sign", "Widgets.Verify", "Widgets.Keys.Read", "Widgets.Keys.ReadAll"];

    /// <summary>How long a token is valid, as Entra's default access-token lifetime for an app.</summary>
    public static readonly TimeSpan TokenLifetime = TimeSpan.FromHours(1);
}
