using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>Where grants are kept (<see cref="TableGrantStore"/>; tests put their own behind it).</summary>
internal interface IGrantStore
{
    /// <summary>The receivers caller <paramref name="objectId"/> is granted, at most <paramref name="max"/>.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.GrantsUnavailable"/>: the store did not answer.</exception>
    Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken);
}
