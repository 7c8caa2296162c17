using System.ComponentModel.DataAnnotations;

namespace FunctionApp.Queues;

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

    /// <summary>The largest inline canonical output allowed: base64 of it plus the message's other members stays under 48 KiB.</summary>
    public const int MaxInlineCanonicalBytes = 32 * 1024;

    /// <summary>
    /// Canonical bytes up to this length travel inline (base64) in the output message; longer ones go to
    /// <see cref="QueueNames.WidgetCanonicalContainer"/>. Default 16 KiB; at most <see cref="MaxInlineCanonicalBytes"/>, because a
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
