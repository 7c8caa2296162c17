using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Keys;

/// <summary>
/// Where the signing key lives in Azure Key Vault and how it is cached (configuration section <c>KeyVault</c>).
/// With no <see cref="VaultUri"/> the app signs with <c>Signing:LocalKey</c> (local development only).
/// </summary>
internal sealed class KeyVaultOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "KeyVault";

    private const string Prefix = SectionName + ":";
    private const string RangeError = Prefix + "{0} must be between {1} and {2}.";

    /// <summary>What <see cref="SecretName"/> must be; the attribute checks its form, the registration its presence with a vault.</summary>
    internal const string SecretNameRule = "must be set to a Key Vault secret name (1-127 letters, digits and dashes).";

    /// <summary>
    /// The vault, e.g. <c>https://my-vault.vault.azure.net/</c>. Setting: <c>KeyVault:VaultUri</c>
    /// (<c>KeyVault__VaultUri</c> as an environment variable). No default: unset means "use the local key",
    /// which is refused when the app runs in Azure.
    /// </summary>
    public string? VaultUri { get; set; }

    /// <summary>The secret that holds the key (base64 of at least 32 random bytes). Setting: <c>KeyVault:SecretName</c>. Required with a vault.</summary>
    [RegularExpression("^[0-9A-Za-z-]{1,127}$", ErrorMessage = Prefix + "{0} " + SecretNameRule)]
    public string? SecretName { get; set; }

    /// <summary>
    /// What every receiver's secret name starts with: receiver <c>partner-a</c>'s key is the secret
    /// <c>receiver-partner-a</c>. The default receiver's key is <see cref="SecretName"/> instead. Setting:
    /// <c>KeyVault:ReceiverSecretPrefix</c>. Default <c>receiver-</c>; 1-64 characters of a-z, 0-9 and '-', so a prefixed
    /// id stays within Key Vault's 127 characters.
    /// </summary>
    [RegularExpression("^[a-z0-9-]{1,64}$", ErrorMessage = Prefix + "{0} must be 1-64 characters of a-z, 0-9 and '-'.")]
    public string ReceiverSecretPrefix { get; set; } = "receiver-";

    /// <summary>
    /// The client id of a user-assigned managed identity. Setting: <c>KeyVault:ManagedIdentityClientId</c>.
    /// Default: none, meaning the system-assigned identity. Used only in Azure.
    /// </summary>
    [RegularExpression("^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$", ErrorMessage = Prefix + "{0} must be the client id (a GUID) of a user-assigned managed identity, or unset for the system-assigned one.")]
    public string? ManagedIdentityClientId { get; set; }

    /// <summary>
    /// How often each cached receiver's key is re-read in the background (at a random 80-100 % of it, so refreshes spread
    /// out). Setting: <c>KeyVault:RefreshInterval</c>. Default 15 minutes, which keeps 100 instances with 1,000 active
    /// receivers each within Key Vault's service limit (docs/keys.md).
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "1.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan RefreshInterval { get; set; } = TimeSpan.FromMinutes(15);

    /// <summary>
    /// How many versions before the current one still verify. Setting: <c>KeyVault:AcceptedPreviousVersions</c>.
    /// Default 2. 0 means only the current version verifies.
    /// </summary>
    [Range(0, 25, ErrorMessage = RangeError)]
    public int AcceptedPreviousVersions { get; set; } = 2;

    /// <summary>
    /// How long after it was replaced an earlier version still verifies. Setting: <c>KeyVault:MaxVersionAge</c>.
    /// Default 30 days. Both this and <see cref="AcceptedPreviousVersions"/> must allow a version.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "3650.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan MaxVersionAge { get; set; } = TimeSpan.FromDays(30);

    /// <summary>
    /// How long the cached current key may sign after Key Vault last confirmed it (a successful refresh); past it, signing
    /// stops (503, queue retries) until Key Vault answers again. A revocation the app cannot see while the vault fails
    /// therefore stops signing within this time. Setting: <c>KeyVault:MaxCachedKeyAge</c>. Default 1 hour; at least
    /// <see cref="RefreshInterval"/>.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "7.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan MaxCachedKeyAge { get; set; } = TimeSpan.FromHours(1);

    /// <summary>
    /// The first wait after a failed refresh; it doubles with each further failure up to <see cref="RefreshInterval"/>,
    /// and is never shorter than a throttling response's <c>Retry-After</c>. Setting: <c>KeyVault:FailureRetryDelay</c>. Default 5 seconds.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00.01", "01:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan FailureRetryDelay { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>Retries of one Key Vault call inside the client (500, 503, 429, timeouts). Setting: <c>KeyVault:MaxRetries</c>. Default 3.</summary>
    [Range(0, 10, ErrorMessage = RangeError)]
    public int MaxRetries { get; set; } = 3;

    /// <summary>The client's first retry delay (exponential, at least the server's <c>Retry-After</c>). Setting: <c>KeyVault:RetryDelay</c>. Default 0.8 seconds.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:01:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan RetryDelay { get; set; } = TimeSpan.FromSeconds(0.8);

    /// <summary>The client's longest computed retry delay. Setting: <c>KeyVault:MaxRetryDelay</c>. Default 10 seconds.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:05:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan MaxRetryDelay { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long one Key Vault call may take before it is abandoned (and retried). Setting: <c>KeyVault:NetworkTimeout</c>.
    /// Default 10 seconds (the SDK's 100 s would hold a cold-start request far too long).
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00.01", "00:05:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan NetworkTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>True when a vault is configured, so keys come from Key Vault.</summary>
    public bool IsConfigured => !string.IsNullOrWhiteSpace(VaultUri);
}
