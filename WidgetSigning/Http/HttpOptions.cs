using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Http;

/// <summary>Limits of the HTTP adapters (configuration section <c>Http</c>).</summary>
internal sealed class HttpOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Http";

    /// <summary>The full name of the <see cref="MaxRequestBodyBytes"/> setting.</summary>
    public const string MaxRequestBodyBytesSetting = SectionName + ":" + nameof(MaxRequestBodyBytes);

    /// <summary>The largest value <see cref="MaxRequestBodyBytes"/> may take: the Functions host's own default body limit, 100 MiB.</summary>
    public const int MaxRequestBodyBytesLimit = 100 * 1024 * 1024;

    /// <summary>
    /// The largest envelope <c>/api/sign</c> and <c>/api/verify</c> accept, in bytes of the body as sent (after any
    /// chunked framing is removed); larger bodies get 413, refused from <c>Content-Length</c> before a byte is read or
    /// while a chunked body is read. Setting: <c>Http:MaxRequestBodyBytes</c>. Default 16 MiB (about 50,000 widgets).
    /// Set the host's own limit, <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>, to <see cref="HostBodyLimit"/>: the host's
    /// Kestrel counts chunk framing with the data, so a host limit equal to this one refused chunked envelopes under it.
    /// </summary>
    [Range(1, MaxRequestBodyBytesLimit, ErrorMessage = MaxRequestBodyBytesSetting + " must be between {1} and {2} bytes.")]
    public int MaxRequestBodyBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>
    /// The share of <see cref="MaxRequestBodyBytes"/> the host's limit adds for chunk framing: 1/128 (128 KiB at 16 MiB).
    /// A chunk costs its size line and two line ends (7 bytes for a 1 KiB chunk), so an envelope at the limit fits in
    /// chunks of 1 KiB or more without extensions. The host drains chunk extensions unread; they count against the same
    /// host limit, so one that takes the body past it is refused as chunk framing (413 <c>chunk-framing-too-large</c>).
    /// </summary>
    public const int ChunkFramingShare = 128;

    /// <summary>
    /// The host body limit (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>) that goes with <see cref="MaxRequestBodyBytes"/>: it
    /// plus 1/<see cref="ChunkFramingShare"/> for the chunk framing the host counts (16,908,288 for the default 16 MiB).
    /// Infra and the local settings samples set it; docs/api.md says why.
    /// </summary>
    public long HostBodyLimit => MaxRequestBodyBytes + ((long)MaxRequestBodyBytes / ChunkFramingShare);

    /// <summary>The full name of the <see cref="MinDataRateBytesPerSecond"/> setting.</summary>
    public const string MinDataRateBytesPerSecondSetting = SectionName + ":" + nameof(MinDataRateBytesPerSecond);

    /// <summary>The full name of the <see cref="DataRateGracePeriod"/> setting.</summary>
    public const string DataRateGracePeriodSetting = SectionName + ":" + nameof(DataRateGracePeriod);

    /// <summary>
    /// The slowest a client may send its body, and read the answer, on average after <see cref="DataRateGracePeriod"/>:
    /// a body of N bytes must have arrived within the grace period plus N / this many seconds, or the request gets 408;
    /// an answer of N bytes must be written within the same, or the connection is closed. Setting:
    /// <c>Http:MinDataRateBytesPerSecond</c>. Default 262144 (256 KiB/s, 2 Mbit/s: a 16 MiB body in about 70 s), so
    /// eight trickling connections cannot hold the eight slots for long (1024 … 1073741824).
    /// </summary>
    [Range(1024, 1024 * 1024 * 1024, ErrorMessage = MinDataRateBytesPerSecondSetting + " must be between {1} and {2} bytes per second.")]
    public int MinDataRateBytesPerSecond { get; set; } = 256 * 1024;

    /// <summary>
    /// The time a client has before <see cref="MinDataRateBytesPerSecond"/> applies (connection set-up, a slow start).
    /// Setting: <c>Http:DataRateGracePeriod</c>. Default 5 s (Kestrel's own grace period) (0 … 5 min).
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:05:00", ErrorMessage = DataRateGracePeriodSetting + " must be between {1} and {2}.")]
    public TimeSpan DataRateGracePeriod { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>The full name of the <see cref="SignatureForms"/> setting.</summary>
    public const string SignatureFormsSetting = SectionName + ":" + nameof(SignatureForms);

    /// <summary>
    /// The signature forms <c>/api/sign</c> makes when a request does not ask (<c>?forms=</c>), and the most a request may
    /// ask for: <see cref="Signing.SignatureForms.Plain"/> (<c>X-Signature</c>), <see cref="Signing.SignatureForms.Webhook"/>
    /// (Standard Webhooks) or <see cref="Signing.SignatureForms.Both"/>. Each form is one HMAC chain over the canonical
    /// bytes per key, so a deployment whose receivers check one form signs faster with only that one. Setting:
    /// <c>Http:SignatureForms</c>. Default <c>Both</c>: every answer carried both before the setting existed, and a
    /// receiver checking the dropped form would start failing.
    /// </summary>
    [EnumDataType(typeof(Signing.SignatureForms), ErrorMessage = SignatureFormsSetting + " must be Plain, Webhook or Both.")]
    public Signing.SignatureForms SignatureForms { get; set; } = Signing.SignatureForms.Both;

    /// <summary>How long <paramref name="bytes"/> may take to arrive or to be written: the grace period plus bytes at the minimum rate.</summary>
    public TimeSpan TimeAllowedFor(long bytes) => DataRateGracePeriod + TimeSpan.FromSeconds((double)bytes / MinDataRateBytesPerSecond);
}
