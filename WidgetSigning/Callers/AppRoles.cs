namespace WidgetSigning.Callers;

/// <summary>
/// The app roles of the service's app registration: each endpoint needs one in the caller's token (<c>roles</c> claim).
/// Assigned to a caller's service principal (a managed identity, an app) or to a user; docs/deploy.md shows how.
/// </summary>
internal static class AppRoles
{
    /// <summary><c>POST /api/sign</c>.</summary>
    public const string Sign = "Widgets.Sign";

    /// <summary><c>POST /api/verify</c>.</summary>
    public const string Verify = "Widgets.Verify";

    /// <summary><c>GET /api/keys</c>.</summary>
    public const string KeysRead = "Widgets.Keys.Read";

    /// <summary>
    /// With <see cref="KeysRead"/>: <c>GET /api/keys</c> over every receiver, not only those granted to the caller. For
    /// operators; a caller that signs never needs it.
    /// </summary>
    public const string KeysReadAll = "Widgets.Keys.ReadAll";

    /// <summary>Every role, in the order above.</summary>
    public static IReadOnlyList<string> All { get; } = [Sign, Verify, KeysRead, KeysReadAll];
}
