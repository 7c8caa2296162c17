using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Receivers' keys fixed by the test (a rotation in progress: a current key and staged ones), for hosts without a vault.
/// The default receiver is <see cref="SigningTestExtensions.DefaultReceiver"/>.
/// </summary>
internal sealed class FixedReceiverKeySource : IReceiverKeySource
{
    private readonly SortedDictionary<string, SigningKeys> _keys = new(StringComparer.Ordinal);

    /// <summary>The default receiver signing with <paramref name="current"/> and staged <paramref name="staged"/>.</summary>
    public FixedReceiverKeySource(SigningKey current, params SigningKey[] staged)
        : this(new Dictionary<ReceiverId, SigningKeys> { [SigningTestExtensions.DefaultReceiver] = new(current, staged) })
    {
    }

    /// <summary>Each receiver with its keys.</summary>
    public FixedReceiverKeySource(IReadOnlyDictionary<ReceiverId, SigningKeys> keys)
    {
        foreach (var (receiver, receiverKeys) in keys)
        {
            _keys[receiver.Value] = receiverKeys;
        }
    }

    public ReceiverId? DefaultReceiver => SigningTestExtensions.DefaultReceiver;

    public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        ValueTask.FromResult(Find(receiver));

    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        var keys = Find(receiver);
        return ValueTask.FromResult<IReadOnlyList<SigningKey>>([keys.Current, .. keys.Staged]);
    }

    public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        var keys = Find(receiver);
        return ValueTask.FromResult<IReadOnlyList<KeyDescription>>(
            [new KeyDescription(keys.Current.KeyId, KeyState.Current, null, null, keys.Current.CreatedOn),
             .. keys.Staged.Select(k => new KeyDescription(k.KeyId, KeyState.Staged, null, null, k.CreatedOn))]);
    }

    public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) =>
        ValueTask.FromResult(new ReceiverPage(
            [.. _keys.Keys.Where(id => pageToken is null || string.CompareOrdinal(id, pageToken) > 0).Take(pageSize).Select(ReceiverId.Parse)],
            null));

    private SigningKeys Find(ReceiverId receiver) =>
        _keys.TryGetValue(receiver.Value, out var keys) ? keys : throw Problems.UnknownReceiver(receiver.Value);
}
