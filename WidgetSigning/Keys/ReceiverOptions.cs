using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Keys;

/// <summary>
/// Who envelopes are signed for and how receivers' keys are cached (configuration section <c>Receivers</c>). Each
/// receiver has its own key: in Key Vault the secret <c>KeyVault:ReceiverSecretPrefix</c> + its id; on a developer's
/// machine <c>Signing:LocalKeys:&lt;id&gt;</c>.
/// </summary>
internal sealed class ReceiverOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Receivers";

    /// <summary>The default of <see cref="DefaultReceiver"/>.</summary>
    public const string DefaultReceiverId = "default";

    private const string Prefix = SectionName + ":";
    private const string RangeError = Prefix + "{0} must be between {1} and {2}.";

    /// <summary>
    /// The receiver a request or queue message that names none is signed for. Its key is the deployment's original one:
    /// Key Vault secret <c>KeyVault:SecretName</c>, or <c>Signing:LocalKey</c>. Setting: <c>Receivers:DefaultReceiver</c>.
    /// Default <c>default</c>; empty means every request must name its receivers (<c>?receiver=</c>).
    /// </summary>
    [RegularExpression("^[a-z0-9-]{1,63}$", ErrorMessage = Prefix + "{0} must be a receiver id (" + ReceiverId.Rule + "), or empty.")]
    public string? DefaultReceiver { get; set; } = DefaultReceiverId;

    /// <summary>How many receivers one request may sign for. Setting: <c>Receivers:MaxPerRequest</c>. Default 8 (each adds one HMAC chain per key and form).</summary>
    [Range(1, SigningLimits.MaxReceiversPerRequest, ErrorMessage = RangeError)]
    public int MaxPerRequest { get; set; } = 8;

    /// <summary>
    /// How many receivers' keys one instance keeps; the least recently used beyond it are dropped (and no longer refreshed).
    /// Setting: <c>Receivers:MaxCachedReceivers</c>. Default 2,000.
    /// </summary>
    [Range(1, 100_000, ErrorMessage = RangeError)]
    public int MaxCachedReceivers { get; set; } = 2_000;

    /// <summary>
    /// How long a cached receiver nobody signs or verifies for is kept (and refreshed) before it is dropped.
    /// Setting: <c>Receivers:IdleTimeout</c>. Default 1 hour.
    /// </summary>
    [Range(typeof(TimeSpan), "00:01:00", "7.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan IdleTimeout { get; set; } = TimeSpan.FromHours(1);

    /// <summary>How long "no such receiver" is remembered, so a repeated unknown id costs no Key Vault call. Setting: <c>Receivers:UnknownReceiverCacheDuration</c>. Default 5 minutes.</summary>
    [Range(typeof(TimeSpan), "00:00:01", "1.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan UnknownReceiverCacheDuration { get; set; } = TimeSpan.FromMinutes(5);

    /// <summary>How many unknown ids are remembered (the oldest go first). Setting: <c>Receivers:MaxUnknownReceivers</c>. Default 10,000.</summary>
    [Range(1, 1_000_000, ErrorMessage = RangeError)]
    public int MaxUnknownReceivers { get; set; } = 10_000;

    /// <summary>
    /// How many receivers not cached on this instance may be looked up in Key Vault per second (a token bucket holding as
    /// many); beyond it a request naming an uncached receiver gets 429. Setting: <c>Receivers:MaxLookupsPerSecond</c>. Default 5.
    /// </summary>
    [Range(1, 1_000, ErrorMessage = RangeError)]
    public int MaxLookupsPerSecond { get; set; } = 5;

    /// <summary>The default receiver, or null when every request must name one.</summary>
    public ReceiverId? Default => ReceiverId.TryParse(DefaultReceiver, out var receiver) ? receiver : null;
}
