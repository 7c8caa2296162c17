using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Queues;

/// <summary>
/// The queues and containers of queue signing, as <b>flat</b> app settings (no section): the Functions platform
/// resolves a trigger's <c>%Name%</c> only from a flat setting, not from a nested <c>A:B</c> / <c>A__B</c> one, so
/// every name lives at the root for one rule everywhere. All of them are on the storage connection
/// <see cref="QueueOptions.ConnectionSetting"/>.
/// </summary>
public sealed class QueueNames
{
    /// <summary>Empty: these settings are flat, at the configuration root (the settings catalog reads this too).</summary>
    public const string SectionName = "";

    /// <summary>The input queue's setting, as the trigger attribute names it.</summary>
    public const string InputSetting = nameof(WidgetInputQueue);

    /// <summary>The suffix of the queue poison messages go to.</summary>
    public const string PoisonSuffix = "-poison";

    // Azure's rule for queue and container names: lowercase letters, digits and single hyphens, starting and ending alphanumeric.
    private const string NamePattern = "^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$";

    // Queues get 56 characters, not 63, so that the input queue's name plus "-poison" fits too; checking all three keeps that simple.
    private const string QueueNameError = "{0} must be a queue name of 3-56 lowercase letters, digits and single hyphens (room for '-poison').";
    private const string ContainerNameError = "{0} must be a container name of 3-63 lowercase letters, digits and single hyphens.";

    /// <summary>
    /// The settings these replace (nested names, which the platform does not resolve for triggers) and their new
    /// names: a set old name fails start-up naming the new one, so a stale app setting is not silently ignored.
    /// </summary>
    public static IReadOnlyDictionary<string, string> ObsoleteSettings { get; } = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase)
    {
        ["Queues:Input"] = nameof(WidgetInputQueue),
        ["Queues:Output"] = nameof(WidgetOutputQueue),
        ["Queues:Rejected"] = nameof(WidgetRejectedQueue),
        ["Queues:ClaimCheckContainer"] = nameof(WidgetClaimsContainer),
        ["Queues:CanonicalContainer"] = nameof(WidgetCanonicalContainer),
        ["Queues:RejectedContainer"] = nameof(WidgetRejectedContainer),
    };

    /// <summary>The queue producers drop envelopes and claim checks on (the trigger's <c>%WidgetInputQueue%</c>). Default <c>widget-envelopes</c>.</summary>
    [Required(ErrorMessage = QueueNameError), StringLength(56, MinimumLength = 3, ErrorMessage = QueueNameError), RegularExpression(NamePattern, ErrorMessage = QueueNameError)]
    public string WidgetInputQueue { get; set; } = "widget-envelopes";

    /// <summary>Where each signature goes. Default <c>widget-signatures</c>.</summary>
    [Required(ErrorMessage = QueueNameError), StringLength(56, MinimumLength = 3, ErrorMessage = QueueNameError), RegularExpression(NamePattern, ErrorMessage = QueueNameError)]
    public string WidgetOutputQueue { get; set; } = "widget-signatures";

    /// <summary>Where permanently invalid input goes, with the reason. Default <c>widget-envelopes-rejected</c>.</summary>
    [Required(ErrorMessage = QueueNameError), StringLength(56, MinimumLength = 3, ErrorMessage = QueueNameError), RegularExpression(NamePattern, ErrorMessage = QueueNameError)]
    public string WidgetRejectedQueue { get; set; } = "widget-envelopes-rejected";

    /// <summary>
    /// The only container claim checks may point into, so a message cannot make the service read any blob of the
    /// account. Default <c>widget-claims</c>.
    /// </summary>
    [Required(ErrorMessage = ContainerNameError), StringLength(63, MinimumLength = 3, ErrorMessage = ContainerNameError), RegularExpression(NamePattern, ErrorMessage = ContainerNameError)]
    public string WidgetClaimsContainer { get; set; } = "widget-claims";

    /// <summary>Where canonical bytes too large to travel inline are written. Default <c>widget-canonical</c>.</summary>
    [Required(ErrorMessage = ContainerNameError), StringLength(63, MinimumLength = 3, ErrorMessage = ContainerNameError), RegularExpression(NamePattern, ErrorMessage = ContainerNameError)]
    public string WidgetCanonicalContainer { get; set; } = "widget-canonical";

    /// <summary>Where the body of a rejected inline message is kept, as <c>&lt;message id&gt;</c>, so nothing is lost. Default <c>widget-rejected</c>.</summary>
    [Required(ErrorMessage = ContainerNameError), StringLength(63, MinimumLength = 3, ErrorMessage = ContainerNameError), RegularExpression(NamePattern, ErrorMessage = ContainerNameError)]
    public string WidgetRejectedContainer { get; set; } = "widget-rejected";

    /// <summary>The queue the trigger moves a message to after <c>maxDequeueCount</c> failed attempts.</summary>
    public string PoisonQueue => WidgetInputQueue + PoisonSuffix;
}
