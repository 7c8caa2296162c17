namespace WidgetSigning.Keys;

/// <summary>
/// One version of a receiver's secret as Key Vault lists it: its id and the state that decides what it may do (enabled,
/// created, <c>nbf</c>, <c>exp</c>). No key material.
/// </summary>
internal readonly record struct KeyVersion(string Version, bool? Enabled, DateTimeOffset? CreatedOn, DateTimeOffset? NotBefore, DateTimeOffset? ExpiresOn)
{
    /// <summary>When the version took over from its predecessor: its <c>nbf</c> if later than its creation, else its creation.</summary>
    public DateTimeOffset ActiveFrom => NotBefore is { } notBefore && notBefore > CreatedOn!.Value ? notBefore : CreatedOn!.Value;
}
