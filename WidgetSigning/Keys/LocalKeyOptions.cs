using Microsoft.Extensions.Options;

namespace WidgetSigning.Keys;

/// <summary>
/// The development key (configuration section <c>Signing</c>, so the setting keeps its name <c>Signing:LocalKey</c> that
/// local.settings.json files already carry). Used only when no Key Vault is configured and the app runs with
/// <c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c> (which <c>func start</c> sets); refused everywhere else.
/// </summary>
public sealed class LocalKeyOptions
{
    /// <summary>The key id every development key is reported under.</summary>
    public const string LocalKeyId = "local";

    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Signing";

    /// <summary>The full name of the <see cref="LocalKey"/> setting.</summary>
    public const string LocalKeySetting = SectionName + ":" + nameof(LocalKey);

    /// <summary>
    /// Base64 of at least 32 bytes. Setting: <c>Signing:LocalKey</c> (<c>Signing__LocalKey</c> as an environment variable).
    /// No default.
    /// </summary>
    public string? LocalKey { get; set; }

    /// <summary>The full name of the <see cref="LocalKeys"/> section.</summary>
    public const string LocalKeysSetting = SectionName + ":" + nameof(LocalKeys);

    /// <summary>
    /// Each receiver's development key, by receiver id: <c>Signing:LocalKeys:partner-a</c> (<c>Signing__LocalKeys__partner-a</c>
    /// as an environment variable), base64 of at least 32 bytes. <see cref="LocalKey"/> is the default receiver's. No default.
    /// </summary>
    public Dictionary<string, string> LocalKeys { get; } = new(StringComparer.Ordinal);

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
