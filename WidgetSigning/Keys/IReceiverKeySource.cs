using WidgetSigning.Primitives;

namespace WidgetSigning.Keys;

/// <summary>
/// Every receiver's keys: one secret per receiver (Key Vault in Azure, configuration on a developer's machine). What signs
/// for one receiver never signs for another, so a receiver that can verify its envelopes can forge no one else's.
/// </summary>
internal interface IReceiverKeySource
{
    /// <summary>The receiver a request that names none is signed for (<c>Receivers:DefaultReceiver</c>); null when every request must name one.</summary>
    ReceiverId? DefaultReceiver { get; }

    /// <summary>The receiver's current key and staged keys.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: no key exists for the receiver.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.KeyUnavailable"/>: the receiver's key cannot sign now (revoked, expired, unreadable); other receivers are unaffected.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.ReceiverLookupsLimited"/>: the receiver is not cached and lookups are rate-limited now.</exception>
    ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken);

    /// <summary>Every key of the receiver still accepted for verification, newest first.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: no key exists for the receiver.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.ReceiverLookupsLimited"/>: the receiver is not cached and lookups are rate-limited now.</exception>
    ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken);

    /// <summary>The receiver's keys with their states and windows; never key material.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: no key exists for the receiver.</exception>
    /// <exception cref="ProblemException"><see cref="Problems.Types.ReceiverLookupsLimited"/>: the receiver is not cached and lookups are rate-limited now.</exception>
    ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken);

    /// <summary>
    /// As <see cref="DescribeKeysAsync"/>, for a caller that limits its own lookups (the anonymous key set): loading a
    /// receiver not cached here takes no token of the source's lookup bucket, which stays the budget signing spends.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.UnknownReceiver"/>: no key exists for the receiver.</exception>
    ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysOnOwnBudgetAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        DescribeKeysAsync(receiver, cancellationToken);

    /// <summary>
    /// The receiver's keys if this instance holds them now: no Key Vault call, no lookup, and the receiver is not marked as
    /// used. Null when it is not loaded here (a source that loads nothing ahead says so for every receiver).
    /// </summary>
    IReadOnlyList<KeyDescription>? DescribeLoadedKeys(ReceiverId receiver) => null;

    /// <summary>One page of at most <paramref name="pageSize"/> receivers, from <paramref name="pageToken"/> (null for the first page).</summary>
    /// <exception cref="ArgumentException"><paramref name="pageToken"/> is not a token this source handed out.</exception>
    ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken);
}
