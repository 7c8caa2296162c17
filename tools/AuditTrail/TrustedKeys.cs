using System.Text;
using System.Text.Json;
using Org.BouncyCastle.Math.EC.Rfc8032;

namespace AuditTrail;

/// <summary>
/// The keys seals and anchors must verify under: each <c>--public-key whpk_…</c>, or else the public half of the local
/// development signing key (<c>Audit:LocalSigningKey</c> in the isolated app's local settings). Never the store's own
/// <c>keys/</c> blobs: whoever can write the trail could write those too.
/// </summary>
internal sealed class TrustedKeys
{
    /// <summary>The setting that holds the local signing key.</summary>
    public const string LocalKeySetting = "Audit:LocalSigningKey";

    private const string PublicPrefix = "whpk_";
    private const string SecretPrefix = "whsk_";
    private const int MaxSettingsBytes = 1024 * 1024;

    private readonly Dictionary<string, TrustedKey> _byKid;

    private TrustedKeys(IReadOnlyList<TrustedKey> keys)
    {
        All = keys;
        _byKid = keys.GroupBy(k => k.Kid, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.First(), StringComparer.Ordinal);
    }

    /// <summary>Every trusted key, in the order given.</summary>
    public IReadOnlyList<TrustedKey> All { get; }

    /// <summary>The trusted key with <paramref name="kid"/>, or null.</summary>
    public TrustedKey? Find(string? kid) => kid is not null && _byKid.TryGetValue(kid, out var key) ? key : null;

    /// <summary>The keys from <paramref name="publicKeys"/>, or when there are none, from the repo's local settings.</summary>
    public static TrustedKeys Load(IReadOnlyList<string> publicKeys, string currentDirectory)
    {
        ArgumentNullException.ThrowIfNull(publicKeys);
        if (publicKeys.Count > 0)
        {
            return new TrustedKeys(publicKeys.Select((k, i) => new TrustedKey(ParsePublicKey(k, i + 1), "--public-key")).ToList());
        }

        return new TrustedKeys([FromLocalSettings(currentDirectory)]);
    }

    private static byte[] ParsePublicKey(string value, int position)
    {
        var bytes = new byte[TrustedKey.PublicKeyBytes];
        if (!value.StartsWith(PublicPrefix, StringComparison.Ordinal) || value.Length > 64 ||
            !Convert.TryFromBase64String(value[PublicPrefix.Length..], bytes, out var written) || written != TrustedKey.PublicKeyBytes)
        {
            throw new OperatorException($"--public-key #{position} is not whpk_ followed by the base64 of a 32-byte Ed25519 public key.");
        }

        return bytes;
    }

    private static TrustedKey FromLocalSettings(string currentDirectory)
    {
        var root = RepoRoot.Find(currentDirectory)
            ?? throw new OperatorException("No trusted key: pass --public-key whpk_<base64> (the signing key's public half), or run inside the repository so the local key (Audit:LocalSigningKey) can be read.");
        var relative = Path.Combine("FunctionApp.Isolated", "local.settings.json");
        if (!File.Exists(Path.Combine(root, relative)))
        {
            relative = Path.Combine("FunctionApp.Isolated", "local.settings.sample.json");
        }

        var file = Path.Combine(root, relative);
        var setting = ReadSetting(file, relative)
            ?? throw new OperatorException($"No trusted key: {relative} has no {LocalKeySetting}; pass --public-key whpk_<base64>.");
        var seed = ParseSeed(setting, relative);
        var publicKey = new byte[TrustedKey.PublicKeyBytes];
        Ed25519.GeneratePublicKey(seed, 0, publicKey, 0);
        return new TrustedKey(publicKey, $"{LocalKeySetting} in {relative.Replace('\\', '/')}");
    }

    private static string? ReadSetting(string file, string relative)
    {
        try
        {
            var info = new FileInfo(file);
            if (!info.Exists)
            {
                return null;
            }

            if (info.Length > MaxSettingsBytes)
            {
                throw new OperatorException($"{relative} is larger than {MaxSettingsBytes} bytes.");
            }

            using var document = JsonDocument.Parse(File.ReadAllBytes(file), new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                return null;
            }

            foreach (var scope in new[] { document.RootElement.TryGetProperty("Values", out var values) ? values : default, document.RootElement })
            {
                if (scope.ValueKind == JsonValueKind.Object)
                {
                    foreach (var name in new[] { LocalKeySetting, LocalKeySetting.Replace(":", "__", StringComparison.Ordinal) })
                    {
                        if (scope.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String && value.GetString() is { Length: > 0 } text)
                        {
                            return text;
                        }
                    }
                }
            }

            return null;
        }
        catch (Exception exception) when (exception is JsonException or IOException or UnauthorizedAccessException)
        {
            throw new OperatorException($"{relative} cannot be read as JSON ({exception.GetType().Name}).");
        }
    }

    private static byte[] ParseSeed(string setting, string relative)
    {
        var bad = $"{LocalKeySetting} in {relative} is not whsk_ followed by the base64 of a 32-byte Ed25519 seed (or 64 bytes: seed and public key).";
        if (!setting.StartsWith(SecretPrefix, StringComparison.Ordinal) || setting.Length > 128)
        {
            throw new OperatorException(bad);
        }

        var bytes = new byte[64];
        if (!Convert.TryFromBase64String(setting[SecretPrefix.Length..], bytes, out var written) || written is not (32 or 64))
        {
            throw new OperatorException(bad);
        }

        return bytes[..32];
    }

    /// <summary>One line per key for the report: its kid and where it came from (never the key itself).</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        foreach (var key in All)
        {
            text.Append("trusted key: kid ").Append(key.Kid).Append(" (").Append(key.Source).Append(')').AppendLine();
        }

        return text.ToString();
    }
}
