namespace WidgetSigning.Keys;

/// <summary>Where signing keys come from: configuration for local development, Key Vault in Azure.</summary>
public interface ISigningKeySource
{
    /// <summary>The key new signatures are made with.</summary>
    /// <exception cref="SigningKeyUnavailableException">No key has been obtained yet.</exception>
    ValueTask<SigningKey> GetCurrentKeyAsync(CancellationToken cancellationToken);

    /// <summary>The key with id <paramref name="keyId"/> if it is still accepted for verification; otherwise null.</summary>
    ValueTask<SigningKey?> FindKeyAsync(string keyId, CancellationToken cancellationToken);

    /// <summary>Every key still accepted for verification, newest first.</summary>
    ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(CancellationToken cancellationToken);

    /// <summary>The current key and every staged key (a source without staging has none).</summary>
    /// <exception cref="SigningKeyUnavailableException">No usable current key.</exception>
    async ValueTask<SigningKeys> GetSigningKeysAsync(CancellationToken cancellationToken) =>
        new(await GetCurrentKeyAsync(cancellationToken).ConfigureAwait(false), []);

    /// <summary>Every key this source holds, with its state and validity window; never key material.</summary>
    async ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(CancellationToken cancellationToken)
    {
        var current = await GetCurrentKeyAsync(cancellationToken).ConfigureAwait(false);
        return [new KeyDescription(current.KeyId, KeyState.Current, null, null, current.CreatedOn)];
    }
}
