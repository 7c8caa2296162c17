using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Audit;

/// <summary>
/// The audit store (configuration section <c>Audit</c>): where each signature's record is made durable before the
/// signature leaves, and how (docs/audit-trail.md). The store is a blob container on the <c>WidgetStorage</c> connection.
/// </summary>
internal sealed class AuditOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Audit";

    /// <summary>The full name of the <see cref="Disabled"/> setting.</summary>
    public const string DisabledSetting = SectionName + ":" + nameof(Disabled);

    /// <summary>The full name of the <see cref="StoreTimeout"/> setting.</summary>
    public const string StoreTimeoutSetting = SectionName + ":" + nameof(StoreTimeout);

    /// <summary>The full name of the <see cref="WriteTimeout"/> setting.</summary>
    public const string WriteTimeoutSetting = SectionName + ":" + nameof(WriteTimeout);

    /// <summary>The full name of the <see cref="LocalSigningKey"/> setting.</summary>
    public const string LocalSigningKeySetting = SectionName + ":" + nameof(LocalSigningKey);

    /// <summary>
    /// Development only: no record is stored (event 7001 is still logged) and nothing waits for one. Refused at start
    /// unless <c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c> off Azure. Default false. Setting: <c>Audit:Disabled</c>.
    /// </summary>
    public bool Disabled { get; set; }

    /// <summary>The blob container holding the trail. Default <c>widget-audit</c>. Setting: <c>Audit:Container</c>.</summary>
    [Required(AllowEmptyStrings = false, ErrorMessage = SectionName + ":" + nameof(Container) + " must name a blob container.")]
    [RegularExpression("^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$", ErrorMessage = SectionName + ":" + nameof(Container) + " must be a blob container name: 3-63 lowercase letters, digits and single hyphens.")]
    public string Container { get; set; } = "widget-audit";

    /// <summary>
    /// The Key Vault secret (in <c>KeyVault:VaultUri</c>) holding the trail's Ed25519 key as <c>whsk_</c> + base64,
    /// which signs every durable write and every anchor. Default <c>audit-signing-key</c>. Setting: <c>Audit:SigningKeySecretName</c>.
    /// </summary>
    [Required(AllowEmptyStrings = false, ErrorMessage = SectionName + ":" + nameof(SigningKeySecretName) + " must name a Key Vault secret.")]
    [RegularExpression("^[0-9a-zA-Z-]{1,127}$", ErrorMessage = SectionName + ":" + nameof(SigningKeySecretName) + " must be a Key Vault secret name: 1-127 letters, digits and hyphens.")]
    public string SigningKeySecretName { get; set; } = "audit-signing-key";

    /// <summary>
    /// Development only: the trail's key itself (<c>whsk_</c> + base64), used when no Key Vault is configured, as
    /// <c>Signing:LocalKey</c> is. No default. Setting: <c>Audit:LocalSigningKey</c>.
    /// </summary>
    public string? LocalSigningKey { get; set; }

    /// <summary>
    /// How often an instance writes an anchor (its sealed chain head, signed, in a blob written once) while it has
    /// written records since its last one. Default 1 minute; 5 seconds to 1 hour. Setting: <c>Audit:AnchorInterval</c>.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:05", "01:00:00", ErrorMessage = SectionName + ":" + nameof(AnchorInterval) + " must be between {1} and {2}.")]
    public TimeSpan AnchorInterval { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>
    /// The longest a signature waits for its record to become durable; past it the request answers 503
    /// <c>audit-unavailable</c> (a queue message is released). Default 10 seconds; 1 to 60 seconds. Setting: <c>Audit:WriteTimeout</c>.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "00:01:00", ErrorMessage = SectionName + ":" + nameof(WriteTimeout) + " must be between {1} and {2}.")]
    public TimeSpan WriteTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The longest one durable write (every call to the store it makes: the stream's length, its creation, the append)
    /// or one anchor may take before it is cancelled and counted as failed, so a hung call frees its writer. Default 5
    /// seconds; 1 to 60 seconds, and at most <see cref="WriteTimeout"/>. Setting: <c>Audit:StoreTimeout</c>.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "00:01:00", ErrorMessage = SectionName + ":" + nameof(StoreTimeout) + " must be between {1} and {2}.")]
    public TimeSpan StoreTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// The most records one durable write (one append block) carries. Default 500; 1 to 2,000 (a record is under 2 KiB,
    /// an append block at most 4 MiB). Setting: <c>Audit:MaxRecordsPerWrite</c>.
    /// </summary>
    [Range(1, 2000, ErrorMessage = SectionName + ":" + nameof(MaxRecordsPerWrite) + " must be between {1} and {2}.")]
    public int MaxRecordsPerWrite { get; set; } = 500;

    /// <summary>
    /// How many writers, each with its own chain and one durable write in flight, a process runs. A record wakes an idle
    /// writer; what arrives while every writer is busy is the next group. One writer makes the largest groups, which
    /// measured fastest up to concurrency 256 (docs/decisions/audit-group-commit.md); more keep several writes in
    /// flight where one write's latency, not the store's cost per write, bounds the rate. Default 1; 1 to 16.
    /// Setting: <c>Audit:Writers</c>.
    /// </summary>
    [Range(1, 16, ErrorMessage = SectionName + ":" + nameof(Writers) + " must be between {1} and {2}.")]
    public int Writers { get; set; } = 1;

    /// <summary>The <c>Retry-After</c> of a 503 <c>audit-unavailable</c>, and the delay before a released message returns. Default 10 seconds.</summary>
    [Range(typeof(TimeSpan), "00:00:01", "00:05:00", ErrorMessage = SectionName + ":" + nameof(RetryAfter) + " must be between {1} and {2}.")]
    public TimeSpan RetryAfter { get; set; } = TimeSpan.FromSeconds(10);
}
