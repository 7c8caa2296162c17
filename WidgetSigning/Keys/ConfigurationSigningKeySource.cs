using Microsoft.Extensions.Options;

namespace WidgetSigning.Keys;

/// <summary>
/// The development key source: one key from <c>Signing:LocalKey</c> (base64 of at least 32 bytes), reported
/// as key id <c>local</c>. Used only when no Key Vault is configured and the app runs in development
/// (<see cref="IAzureEnvironment.IsDevelopment"/>; the <see cref="KeyVaultOptions"/> validation refuses it elsewhere).
/// </summary>
public sealed class ConfigurationSigningKeySource : ISigningKeySource
{
    /// <summary>The key id of the configuration key.</summary>
    public const string LocalKeyId = "local";

    /// <summary>The setting that holds the key.</summary>
    public const string SettingName = LocalKeyOptions.LocalKeySetting;

    private readonly SigningKey _key;
    private readonly IReadOnlyList<SigningKey> _all;

    /// <summary>Reads and checks the key once.</summary>
    /// <exception cref="OptionsValidationException">The setting is missing, not base64, or shorter than 32 bytes.</exception>
    public ConfigurationSigningKeySource(IOptions<LocalKeyOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _key = Parse(options.Value.LocalKey);
        _all = [_key];
    }

    /// <inheritdoc />
    public ValueTask<SigningKey> GetCurrentKeyAsync(CancellationToken cancellationToken) => ValueTask.FromResult(_key);

    /// <inheritdoc />
    public ValueTask<SigningKey?> FindKeyAsync(string keyId, CancellationToken cancellationToken) =>
        ValueTask.FromResult(string.Equals(keyId, LocalKeyId, StringComparison.Ordinal) ? _key : null);

    /// <inheritdoc />
    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(CancellationToken cancellationToken) =>
        ValueTask.FromResult(_all);

    /// <summary>Turns the setting's value into a key, or fails naming the setting (never echoing the value).</summary>
    public static SigningKey Parse(string? base64) => Parse(base64, SettingName);

    /// <summary>Turns <paramref name="setting"/>'s value into a key, or fails naming the setting (never echoing the value).</summary>
    internal static SigningKey Parse(string? base64, string setting)
    {
        if (string.IsNullOrWhiteSpace(base64))
        {
            throw Fail($"{setting} is not set. Set it to base64 of at least {SigningKey.MinimumKeyBytes} random bytes (openssl rand -base64 32), or configure Key Vault.");
        }

        var buffer = new byte[(base64.Length * 3 / 4) + 3];
        try
        {
            if (!Convert.TryFromBase64String(base64.Trim(), buffer, out var length))
            {
                throw Fail($"{setting} is not valid base64.");
            }

            if (length < SigningKey.MinimumKeyBytes)
            {
                throw Fail($"{setting} decodes to {length} bytes; at least {SigningKey.MinimumKeyBytes} are required.");
            }

            return new SigningKey(LocalKeyId, buffer.AsSpan(0, length));
        }
        finally
        {
            System.Security.Cryptography.CryptographicOperations.ZeroMemory(buffer);
        }
    }

    private static OptionsValidationException Fail(string message) =>
        new(LocalKeyOptions.SectionName, typeof(LocalKeyOptions), [message]);
}
