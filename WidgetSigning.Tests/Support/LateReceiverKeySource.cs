using WidgetSigning.Keys;

namespace WidgetSigning.Tests.Support;

/// <summary>
/// Another key source's keys, never at hand at once (as while Key Vault is asked): the signer then reads the whole
/// envelope first and signs it afterwards, the path production takes whenever the keys are still loading.
/// </summary>
internal sealed class LateReceiverKeySource(IReceiverKeySource inner) : IReceiverKeySource
{
    public ReceiverId? DefaultReceiver => inner.DefaultReceiver;

    public async ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        await Task.Yield();
        return await inner.GetSigningKeysAsync(receiver, cancellationToken);
    }

    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        inner.GetVerificationKeysAsync(receiver, cancellationToken);

    public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        inner.DescribeKeysAsync(receiver, cancellationToken);

    public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) =>
        inner.ListReceiversAsync(pageToken, pageSize, cancellationToken);
}
