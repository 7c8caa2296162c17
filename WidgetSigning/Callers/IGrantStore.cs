namespace WidgetSigning.Callers;

/// <summary>Where grants are kept (<see cref="TableGrantStore"/>; tests put their own behind it).</summary>
internal interface IGrantStore
{
    /// <summary>The receivers caller <paramref name="objectId"/> is granted, at most <paramref name="max"/>.</summary>
    /// <exception cref="GrantsUnavailableException">The store did not answer.</exception>
    Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken);
}
