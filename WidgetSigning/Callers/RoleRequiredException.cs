namespace WidgetSigning.Callers;

/// <summary>403: the caller's token is valid but lacks the app role the endpoint needs.</summary>
internal sealed class RoleRequiredException : Exception
{
    /// <summary>Creates the exception for <paramref name="role"/>, which the validated <paramref name="caller"/> lacks.</summary>
    public RoleRequiredException(string role, CallerIdentity? caller)
        : this(role)
    {
        Caller = caller;
    }

    /// <summary>Creates the exception for <paramref name="role"/>.</summary>
    public RoleRequiredException(string role)
        : base($"The caller's token does not carry the app role '{role}', which this endpoint requires.")
    {
        Role = role;
    }

    /// <summary>Creates the exception.</summary>
    public RoleRequiredException()
        : this(AppRoles.Sign)
    {
    }

    /// <summary>Creates the exception.</summary>
    public RoleRequiredException(string role, Exception innerException)
        : base($"The caller's token does not carry the app role '{role}'.", innerException)
    {
        Role = role;
    }

    /// <summary>The role required.</summary>
    public string Role { get; }

    /// <summary>
    /// The validated caller that lacks the role: a caller probing for rights it lacks is the one an audit record must
    /// name.
    /// </summary>
    public CallerIdentity? Caller { get; }
}
