using System.ComponentModel.DataAnnotations;

namespace FunctionApp.Queues;

/// <summary>
/// Names and limits of queue-triggered signing (configuration section <c>Queues</c>). The trigger's own
/// polling settings are host settings (host.json <c>extensions.queues</c>), not these. The storage account is the
/// connection string in the app setting <see cref="ConnectionSetting"/>.
/// </summary>
public sealed class QueueOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Queues";

    /// <summary>
    /// The app setting that holds the storage connection string of every queue and container below (in Azure a Key
    /// Vault reference; locally <c>UseDevelopmentStorage=true</c>). A constant because the function's binding
    /// attributes name it and the platform's scale controller reads it from function.json.
    /// </summary>
    public const string ConnectionSetting = "WidgetStorage";

    /// <summary>The largest inline canonical output allowed: base64 of it plus the message's other members stays under 48 KiB.</summary>
    public const int MaxInlineCanonicalBytes = 32 * 1024;

    // Azure's rule for queue and container names: lowercase letters, digits and single hyphens, starting and ending alphanumeric.
    private const string NamePattern = "^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$";

    // Queues get 56 characters, not 63, so that the input queue's name plus "-poison" fits too; checking all three keeps that simple.
    private const string QueueNameError = SectionName + ":{0} must be a queue name of 3-56 lowercase letters, digits and single hyphens (room for '-poison').";
    private const string ContainerNameError = SectionName + ":{0} must be a container name of 3-63 lowercase letters, digits and single hyphens.";

    /// <summary>
    /// The queue producers drop envelopes and claim checks on. Default <c>widget-envelopes</c>. Setting: <c>Queues:Input</c>.
    /// The function's attributes name the queues and containers as <c>%Queues:…%</c>, so every name must be set as an
    /// app setting (the defaults here document the shipped values; validation checks the set ones).
    /// </summary>
    [Required(ErrorMessage = QueueNameError), StringLength(56, MinimumLength = 3, ErrorMessage = QueueNameError), RegularExpression(NamePattern, ErrorMessage = QueueNameError)]
    public string Input { get; set; } = "widget-envelopes";

    /// <summary>Where each signature goes. Default <c>widget-signatures</c>. Setting: <c>Queues:Output</c>.</summary>
    [Required(ErrorMessage = QueueNameError), StringLength(56, MinimumLength = 3, ErrorMessage = QueueNameError), RegularExpression(NamePattern, ErrorMessage = QueueNameError)]
    public string Output { get; set; } = "widget-signatures";

    /// <summary>Where permanently invalid input goes, with the reason. Default <c>widget-envelopes-rejected</c>. Setting: <c>Queues:Rejected</c>.</summary>
    [Required(ErrorMessage = QueueNameError), StringLength(56, MinimumLength = 3, ErrorMessage = QueueNameError), RegularExpression(NamePattern, ErrorMessage = QueueNameError)]
    public string Rejected { get; set; } = "widget-envelopes-rejected";

    /// <summary>
    /// The only container claim checks may point into, so a message cannot make the service read any blob of the
    /// account. Default <c>widget-claims</c>. Setting: <c>Queues:ClaimCheckContainer</c>.
    /// </summary>
    [Required(ErrorMessage = ContainerNameError), StringLength(63, MinimumLength = 3, ErrorMessage = ContainerNameError), RegularExpression(NamePattern, ErrorMessage = ContainerNameError)]
    public string ClaimCheckContainer { get; set; } = "widget-claims";

    /// <summary>
    /// Where canonical bytes too large to travel inline are written, as <c>&lt;input message id&gt;.json</c>.
    /// Default <c>widget-canonical</c>. Setting: <c>Queues:CanonicalContainer</c>.
    /// </summary>
    [Required(ErrorMessage = ContainerNameError), StringLength(63, MinimumLength = 3, ErrorMessage = ContainerNameError), RegularExpression(NamePattern, ErrorMessage = ContainerNameError)]
    public string CanonicalContainer { get; set; } = "widget-canonical";

    /// <summary>
    /// Where the body of a rejected inline message is kept, as <c>&lt;message id&gt;</c>, so nothing is lost.
    /// Default <c>widget-rejected</c>. Setting: <c>Queues:RejectedContainer</c>.
    /// </summary>
    [Required(ErrorMessage = ContainerNameError), StringLength(63, MinimumLength = 3, ErrorMessage = ContainerNameError), RegularExpression(NamePattern, ErrorMessage = ContainerNameError)]
    public string RejectedContainer { get; set; } = "widget-rejected";

    /// <summary>
    /// Canonical bytes up to this length travel inline (base64) in the output message; longer ones go to
    /// <see cref="CanonicalContainer"/>. Default 16 KiB; at most <see cref="MaxInlineCanonicalBytes"/>, because a
    /// queue message carries 64 KiB, about 48 KiB of data once base64-encoded. Setting: <c>Queues:InlineCanonicalMaxBytes</c>.
    /// </summary>
    [Range(0, MaxInlineCanonicalBytes, ErrorMessage = SectionName + ":" + nameof(InlineCanonicalMaxBytes) + " must be between {1} and {2} (a queue message carries 64 KiB, about 48 KiB once base64-encoded).")]
    public int InlineCanonicalMaxBytes { get; set; } = 16 * 1024;

    /// <summary>
    /// The largest claim-check blob accepted, in bytes; larger ones are rejected unread. Default 16 MiB, the same
    /// limit as <c>/api/sign</c>. Setting: <c>Queues:MaxClaimCheckBytes</c>.
    /// </summary>
    [Range(typeof(long), "1", "9223372036854775807", ErrorMessage = SectionName + ":" + nameof(MaxClaimCheckBytes) + " must be positive.")]
    public long MaxClaimCheckBytes { get; set; } = 16 * 1024 * 1024;
}
