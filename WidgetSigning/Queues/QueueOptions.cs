using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Queues;

/// <summary>
/// Limits of queue-triggered signing (configuration section <c>Queues</c>). The queue and container names are flat
/// settings (<see cref="QueueNames"/>); the trigger's polling settings are host.json <c>extensions.queues</c>. The
/// storage account is the connection <see cref="ConnectionSetting"/>.
/// </summary>
public sealed class QueueOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Queues";

    /// <summary>
    /// The storage connection of every queue and container (<see cref="QueueNames"/>): a connection string
    /// (locally <c>UseDevelopmentStorage=true</c>) or, in Azure, an identity-based connection
    /// (<c>WidgetStorage__queueServiceUri</c>, <c>__blobServiceUri</c>, <c>__credential</c>, <c>__clientId</c>).
    /// A constant because the trigger attribute names it and function.json carries it.
    /// </summary>
    public const string ConnectionSetting = "WidgetStorage";

    /// <summary>
    /// The largest inline canonical output allowed. The output message is base64 of its JSON, so the JSON may hold
    /// 48 KiB: 30 KiB inline is 40 KiB of base64, which leaves 8 KiB for the rest, whose largest member is the claim
    /// check's name (1,024 characters, at most 6 bytes each once JSON-escaped). So no output can exceed a queue message.
    /// </summary>
    public const int MaxInlineCanonicalBytes = 30 * 1024;

    /// <summary>The most characters a queue message's text may have (64 KiB).</summary>
    public const int MaxQueueMessageChars = 64 * 1024;

    /// <summary>
    /// Canonical bytes up to this length travel inline (base64) in the output message; longer ones go to
    /// <see cref="QueueNames.WidgetCanonicalContainer"/>. Default 16 KiB; at most <see cref="MaxInlineCanonicalBytes"/>, because a
    /// queue message carries 64 KiB, 48 KiB of JSON once base64-encoded. Setting: <c>Queues:InlineCanonicalMaxBytes</c>.
    /// </summary>
    [Range(0, MaxInlineCanonicalBytes, ErrorMessage = SectionName + ":" + nameof(InlineCanonicalMaxBytes) + " must be between {1} and {2} (a queue message carries 64 KiB, 48 KiB of JSON once base64-encoded, which must also hold the claim check's name).")]
    public int InlineCanonicalMaxBytes { get; set; } = 16 * 1024;

    /// <summary>
    /// The largest claim-check blob accepted, in bytes; larger ones are rejected unread. Default 16 MiB, the same
    /// limit as <c>/api/sign</c>. Setting: <c>Queues:MaxClaimCheckBytes</c>.
    /// </summary>
    [Range(typeof(long), "1", "9223372036854775807", ErrorMessage = SectionName + ":" + nameof(MaxClaimCheckBytes) + " must be positive.")]
    public long MaxClaimCheckBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>
    /// The signature forms each output message carries: <see cref="Signing.SignatureForms.Plain"/> (<c>signature</c>,
    /// <c>signatures</c>), <see cref="Signing.SignatureForms.Webhook"/> (<c>webhook</c>) or
    /// <see cref="Signing.SignatureForms.Both"/>. A queue message has no per-message place for the choice (its body is the
    /// envelope, whose members the contract fixes, or a claim check), so it is this deployment's. Setting:
    /// <c>Queues:SignatureForms</c>. Default <c>Both</c>, what every output carried before the setting existed.
    /// </summary>
    [EnumDataType(typeof(Signing.SignatureForms), ErrorMessage = SectionName + ":" + nameof(SignatureForms) + " must be Plain, Webhook or Both.")]
    public Signing.SignatureForms SignatureForms { get; set; } = Signing.SignatureForms.Both;

    /// <summary>
    /// The receiver a message that names none is signed for (an inline envelope, or a claim check without
    /// <c>receivers</c>). Setting: <c>Queues:DefaultReceiver</c>. Default: empty, meaning <c>Receivers:DefaultReceiver</c>.
    /// With neither, a message that names no receiver is rejected.
    /// </summary>
    [RegularExpression("^[a-z0-9-]{1,63}$", ErrorMessage = SectionName + ":" + nameof(DefaultReceiver) + " must be a receiver id (" + Keys.ReceiverId.Rule + "), or empty.")]
    public string DefaultReceiver { get; set; } = string.Empty;

    /// <summary>
    /// The receivers a message on the input queue may name besides the queue's default one, comma-separated: a queue
    /// message carries no caller token, so whoever holds "Storage Queue Data Message Sender" on the queue signs for these
    /// and no others; a message naming another is rejected with the reason. Setting: <c>Queues:AllowedReceivers</c>.
    /// Default: empty, meaning only the queue's default receiver.
    /// </summary>
    [RegularExpression("^$|^[a-z0-9-]{1,63}(,[a-z0-9-]{1,63}){0,999}$", ErrorMessage = SectionName + ":" + nameof(AllowedReceivers) + " must be receiver ids (" + Keys.ReceiverId.Rule + ") separated by commas, or empty.")]
    public string AllowedReceivers { get; set; } = string.Empty;

    /// <summary>
    /// The attempts after which the host moves a failing message to the poison queue: host.json
    /// <c>extensions.queues.maxDequeueCount</c>, which the worker cannot read. Used only to count poisoned messages
    /// (<c>widgetsigning.queue.poison</c>); keep the two equal. Setting: <c>Queues:MaxDequeueCount</c>. Default: 5.
    /// </summary>
    [Range(1, 100, ErrorMessage = SectionName + ":" + nameof(MaxDequeueCount) + " must be between {1} and {2}, as host.json maxDequeueCount.")]
    public int MaxDequeueCount { get; set; } = 5;
}
