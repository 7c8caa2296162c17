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
