using System.Globalization;

namespace WidgetSigning.Primitives;

/// <summary>
/// Bounds client-supplied text (member names, blob names, values) before it is echoed into an error, a log line or a
/// rejected message, so that a hostile input cannot make those grow with its own size.
/// </summary>
public static class EchoText
{
    /// <summary>The longest client text echoed by default, in characters (before the truncation marker).</summary>
    public const int DefaultMaxLength = 64;

    /// <summary>
    /// Returns <paramref name="value"/> unchanged when it is at most <paramref name="maxLength"/> characters; otherwise its
    /// first <paramref name="maxLength"/> characters followed by a marker that says how many were left out, e.g.
    /// <c>abc…(+1,234 chars)</c>. Never splits a surrogate pair.
    /// </summary>
    public static string Truncate(string? value, int maxLength = DefaultMaxLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxLength);
        if (value is null || value.Length <= maxLength)
        {
            return value ?? string.Empty;
        }

        var keep = maxLength;
        if (keep > 0 && char.IsHighSurrogate(value[keep - 1]))
        {
            keep--;
        }

        return string.Create(CultureInfo.InvariantCulture, $"{value.AsSpan(0, keep)}…(+{value.Length - keep:N0} chars)");
    }
}
