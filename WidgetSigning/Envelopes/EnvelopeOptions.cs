using System.ComponentModel.DataAnnotations;
using WidgetSigning.Primitives;

namespace WidgetSigning.Envelopes;

/// <summary>Limits of the envelope reader (configuration section <c>Envelopes</c>); they apply to HTTP and queue alike.</summary>
internal sealed class EnvelopeOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Envelopes";

    /// <summary>The default of <see cref="MaxWidgets"/>.</summary>
    public const int DefaultMaxWidgets = 50_000;

    /// <summary>
    /// The most widgets one envelope may hold; one more is rejected with its JSON path. Setting: <c>Envelopes:MaxWidgets</c>.
    /// Default 50,000: a 16 MiB body (the default body limit) holds about 50,000 widgets of the seed's shape
    /// (about 335 bytes each), so the limit does not bite before the byte limit for real data, while a body of minimal
    /// widgets (about 230 bytes) cannot make the service build and sign more than 50,000 objects.
    /// </summary>
    [Range(1, 10_000_000, ErrorMessage = SectionName + ":" + nameof(MaxWidgets) + " must be between {1} and {2}.")]
    public int MaxWidgets { get; set; } = DefaultMaxWidgets;

    /// <summary>
    /// The most characters of client text (a member name, a token, a parser message) copied into an error, a log line or a rejected message;
    /// longer text is cut and marked with how much was left out. JSON paths keep 32 more characters for their known parts
    /// (<c>$.widgets[49999].</c>). Setting: <c>Envelopes:MaxEchoedChars</c>. Default 64.
    /// </summary>
    [Range(8, 4096, ErrorMessage = SectionName + ":" + nameof(MaxEchoedChars) + " must be between {1} and {2}.")]
    public int MaxEchoedChars { get; set; } = EchoText.DefaultMaxLength;

    /// <summary>The default of <see cref="MaxCanonicalBytes"/>: 24 MiB.</summary>
    public const long DefaultMaxCanonicalBytes = 24L * 1024 * 1024;

    /// <summary>The full name of the <see cref="MaxCanonicalBytes"/> setting.</summary>
    public const string MaxCanonicalBytesSetting = SectionName + ":" + nameof(MaxCanonicalBytes);

    /// <summary>
    /// The largest canonical form signed; writing stops as soon as it would be larger and the request gets 413 (the
    /// message a rejection) naming this setting. Input limits alone do not bound it: a raw U+0085 (2 bytes) becomes the
    /// 6-byte escape <c>\u0085</c>. Setting: <c>Envelopes:MaxCanonicalBytes</c>. Default 24 MiB, 1.5 times the default body
    /// limit: a real envelope's canonical form is about its compact body's size (a GUID in the N form grows by 4 bytes),
    /// while a body built to triple in size is cut. 1024 … 268435456 (the pool's largest stream).
    /// </summary>
    [Range(1024L, 256L * 1024 * 1024, ErrorMessage = MaxCanonicalBytesSetting + " must be between {1} and {2} bytes.")]
    public long MaxCanonicalBytes { get; set; } = DefaultMaxCanonicalBytes;
}
