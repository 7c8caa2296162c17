using System.Security.Cryptography;
using Azure.Security.KeyVault.Secrets;
using WidgetSigning.Keys;

namespace WidgetSigning.Audit;

/// <summary>
/// The trail's Ed25519 key, which signs every durable write and every anchor: <c>Audit:LocalSigningKey</c> on a
/// developer's machine, else the Key Vault secret <c>Audit:SigningKeySecretName</c>, read once and kept for the
/// process's life (a new key takes effect at the next start; docs/audit-trail.md). A read that fails is tried again
/// by the next write, so a vault outage at start heals without a restart.
/// </summary>
internal sealed class AuditSigningKey
{
    private readonly Func<SecretClient>? _vault;
    private readonly string _secretName;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private Ed25519Key? _key;

    /// <summary>A key source: the local key when given, else the secret through <paramref name="vault"/>.</summary>
    public AuditSigningKey(AuditOptions options, Func<SecretClient>? vault)
    {
        ArgumentNullException.ThrowIfNull(options);
        _secretName = options.SigningKeySecretName;
        _vault = vault;
        if (!string.IsNullOrWhiteSpace(options.LocalSigningKey))
        {
            _key = TryParse(options.LocalSigningKey, out var key, out var reason)
                ? key
                : throw new InvalidOperationException($"{AuditOptions.LocalSigningKeySetting} is not an Ed25519 key: {reason}.");
        }
    }

    /// <summary>The key, read on first use.</summary>
    /// <exception cref="InvalidOperationException">No key is configured, or the secret is not an Ed25519 key (the message never holds the value).</exception>
    public async ValueTask<Ed25519Key> GetAsync(CancellationToken cancellationToken)
    {
        if (_key is { } key)
        {
            return key;
        }

        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (_key is null)
            {
                var vault = _vault?.Invoke() ?? throw new InvalidOperationException(
                    $"The audit trail has no key: set KeyVault:VaultUri (secret {AuditOptions.SectionName}:{nameof(AuditOptions.SigningKeySecretName)}) or, in development, {AuditOptions.LocalSigningKeySetting}.");
                var secret = await vault.GetSecretAsync(_secretName, cancellationToken: cancellationToken).ConfigureAwait(false);
                _key = TryParse(secret.Value.Value, out var read, out var reason)
                    ? read
                    : throw new InvalidOperationException($"Key Vault secret '{_secretName}' is not an Ed25519 key: {reason}.");
            }

            return _key!;
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>The key id the trail names a key by: the first 16 hex digits of the SHA-256 of its public key.</summary>
    public static string KidOf(ReadOnlySpan<byte> publicKey) => AuditLines.Hex(SHA256.HashData(publicKey))[..16];

    /// <summary>Parses <c>whsk_</c> + base64 of the 32-byte seed (or seed and public key); a reason without the value when not.</summary>
    public static bool TryParse(string? value, out Ed25519Key? key, out string reason)
    {
        key = null;
        var text = value.AsSpan().Trim();
        if (!text.StartsWith(Ed25519Key.PrivatePrefix, StringComparison.Ordinal))
        {
            reason = $"it does not start with {Ed25519Key.PrivatePrefix}";
            return false;
        }

        key = Ed25519Key.TryParse(text[Ed25519Key.PrivatePrefix.Length..], out reason);
        return key is not null;
    }
}
