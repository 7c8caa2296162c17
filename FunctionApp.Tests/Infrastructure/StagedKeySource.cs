using WidgetSigning.Keys;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>A key source in the middle of a rotation: one current key and one staged key, for hosts without a vault.</summary>
public sealed class StagedKeySource(SigningKey current, SigningKey staged) : ISigningKeySource
{
    public ValueTask<SigningKey> GetCurrentKeyAsync(CancellationToken cancellationToken) => ValueTask.FromResult(current);

    public ValueTask<SigningKey?> FindKeyAsync(string keyId, CancellationToken cancellationToken) =>
        ValueTask.FromResult(keyId == current.KeyId ? current : keyId == staged.KeyId ? staged : null);

    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(CancellationToken cancellationToken) =>
        ValueTask.FromResult<IReadOnlyList<SigningKey>>([current, staged]);

    public ValueTask<SigningKeys> GetSigningKeysAsync(CancellationToken cancellationToken) => ValueTask.FromResult(new SigningKeys(current, [staged]));
}
