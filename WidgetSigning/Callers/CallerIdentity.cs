using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>
/// Who called, from a validated token: the principal's object id (<c>oid</c>; grants are keyed by it), the client
/// application it used (<c>azp</c>, or <c>appid</c> in a v1 token), its tenant (<c>tid</c>) and its app roles.
/// </summary>
public sealed class CallerIdentity
{
    /// <summary>Creates the identity.</summary>
    public CallerIdentity(string objectId, string? appId, string tenantId, IReadOnlyList<string> roles)
    {
        ArgumentException.ThrowIfNullOrEmpty(objectId);
        ArgumentException.ThrowIfNullOrEmpty(tenantId);
        ArgumentNullException.ThrowIfNull(roles);
        ObjectId = objectId;
        AppId = appId;
        TenantId = tenantId;
        Roles = roles;
    }

    /// <summary>
    /// The caller a validated token or platform principal names, from its claims: <paramref name="objectId"/>
    /// (<c>oid</c>), <paramref name="tenantId"/> (<c>tid</c>) and, when present, <paramref name="appId"/> (<c>azp</c> or
    /// <c>appid</c>) must each be a GUID, as Entra issues them, so that nothing a token's author chose reaches a log, an
    /// audit record or an answer; each is kept in its lower-case <c>D</c> form.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.Unauthenticated"/>: a claim is missing or not a GUID (fixed words, never the claim).</exception>
    public static CallerIdentity FromClaims(string? objectId, string? tenantId, string? appId, IEnumerable<string> roles)
    {
        ArgumentNullException.ThrowIfNull(roles);
        if (!Guid.TryParseExact(objectId, "D", out var oid))
        {
            throw Problems.Unauthenticated("The token names no caller (oid).");
        }

        if (!Guid.TryParseExact(tenantId, "D", out var tid))
        {
            throw Problems.Unauthenticated("The token names no tenant (tid).");
        }

        string? app = null;
        if (appId is not null)
        {
            app = Guid.TryParseExact(appId, "D", out var parsed)
                ? parsed.ToString("D")
                : throw Problems.Unauthenticated("The token's client application (azp or appid) is not a GUID.");
        }

        return new CallerIdentity(oid.ToString("D"), app, tid.ToString("D"), [.. roles]);
    }

    /// <summary>
    /// The caller when <c>Auth:Disabled</c> is set (development only): every role, and grants are not checked. Audit
    /// records name it so.
    /// </summary>
    public static CallerIdentity Development { get; } = new("development", "development", "development", AppRoles.All);

    /// <summary>The principal's object id (<c>oid</c>): for a managed identity, its principal id.</summary>
    public string ObjectId { get; }

    /// <summary>The client application's id (<c>azp</c> or <c>appid</c>); null when the token has neither.</summary>
    public string? AppId { get; }

    /// <summary>The tenant (<c>tid</c>).</summary>
    public string TenantId { get; }

    /// <summary>The app roles granted to the caller (<c>roles</c>).</summary>
    public IReadOnlyList<string> Roles { get; }

    /// <summary>Whether this is <see cref="Development"/>.</summary>
    public bool IsDevelopment => ReferenceEquals(this, Development);

    /// <summary>Whether the caller holds <paramref name="role"/> (app roles compare exactly, as Entra issues them).</summary>
    public bool HasRole(string role)
    {
        foreach (var held in Roles)
        {
            if (string.Equals(held, role, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }
}
