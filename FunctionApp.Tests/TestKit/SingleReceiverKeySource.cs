using WidgetSigning.Keys;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// One secret's key source (a <see cref="KeyVaultSecretKeys"/>, the per-secret class the Key Vault receiver source keeps, driven directly) as the keys of the default
/// receiver alone, so a signer and verifier built on it see exactly the cache, refreshes and failures the test controls.
/// </summary>
internal sealed class SingleReceiverKeySource(KeyVaultSecretKeys source) : IReceiverKeySource
{
    public ReceiverId? DefaultReceiver => SigningTestExtensions.DefaultReceiver;

    public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        Check(receiver);
        return source.GetSigningKeysAsync(cancellationToken);
    }

    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        Check(receiver);
        return source.GetVerificationKeysAsync(cancellationToken);
    }

    public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        Check(receiver);
        return source.DescribeKeysAsync(cancellationToken);
    }

    public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) =>
        ValueTask.FromResult(new ReceiverPage(pageToken is null ? [SigningTestExtensions.DefaultReceiver] : [], null));

    private static void Check(ReceiverId receiver)
    {
        if (receiver != SigningTestExtensions.DefaultReceiver)
        {
            throw Problems.UnknownReceiver(receiver.Value);
        }
    }
}
