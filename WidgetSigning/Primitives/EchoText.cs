using System.Globalization;
using System.Text;

namespace WidgetSigning.Primitives;

/// <summary>
/// Makes client-supplied text (member names, blob names, header and parameter values, paths) safe to echo into an
/// error, a problem <c>detail</c> or <c>jsonPath</c>, a log line or a rejected message: characters a terminal, a log
/// viewer or a bidi-aware renderer would act on are written as <c>\uXXXX</c>, and the result is bounded, so that a
/// hostile input can neither rewrite what a reader sees nor make those grow with its own size.
/// </summary>
/// <remarks>
/// Escaped: C0 controls (U+0000–U+001F, so also CR, LF, TAB and ESC), DEL and C1 controls (U+007F–U+009F), the bidi
/// embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and marks (U+200E, U+200F, U+061C), the line and
/// paragraph separators (U+2028, U+2029), and lone surrogates. Everything else, including valid surrogate pairs, is
/// kept. A backslash is kept as is: the escapes are for safety, not for a reversible encoding.
/// </remarks>
internal static class EchoText
{
    /// <summary>The longest client text echoed by default, in characters (before the truncation marker).</summary>
    public const int DefaultMaxLength = 64;

    /// <summary>
    /// <paramref name="value"/> with the characters above escaped as <c>\uXXXX</c>, at most <paramref name="maxLength"/>
    /// characters of it (escapes counted as written); when something was left out, followed by a marker that says how
    /// many input characters were, e.g. <c>abc…(+1,234 chars)</c>. Never splits a surrogate pair or an escape.
    /// </summary>
    public static string Of(string? value, int maxLength = DefaultMaxLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxLength);
        if (string.IsNullOrEmpty(value))
        {
            return string.Empty;
        }

        if (value.Length <= maxLength && !NeedsEscape(value))
        {
            return value;
        }

        var builder = new StringBuilder(Math.Min(value.Length, maxLength) + 24);
        var i = 0;
        while (i < value.Length)
        {
            var c = value[i];
            var pair = char.IsHighSurrogate(c) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]);
            var width = pair ? 2 : MustEscape(c) ? 6 : 1;
            if (builder.Length + width > maxLength)
            {
                break;
            }

            if (pair)
            {
                builder.Append(c).Append(value[i + 1]);
                i += 2;
            }
            else if (width == 6)
            {
                builder.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}");
                i++;
            }
            else
            {
                builder.Append(c);
                i++;
            }
        }

        if (i < value.Length)
        {
            builder.Append(CultureInfo.InvariantCulture, $"…(+{value.Length - i:N0} chars)");
        }

        return builder.ToString();
    }

    /// <summary>True when <paramref name="value"/> holds a character <see cref="Of"/> escapes.</summary>
    public static bool NeedsEscape(ReadOnlySpan<char> value)
    {
        for (var i = 0; i < value.Length; i++)
        {
            var c = value[i];
            if (char.IsHighSurrogate(c) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]))
            {
                i++;
                continue;
            }

            if (MustEscape(c))
            {
                return true;
            }
        }

        return false;
    }

    // Called for a char that is not the high half of a valid pair: any surrogate here is a lone one.
    private static bool MustEscape(char c) =>
        c < 0x20
        || c is >= '\u007F' and <= '\u009F'
        || c is >= '\u202A' and <= '\u202E'
        || c is >= '\u2066' and <= '\u2069'
        || c is '\u200E' or '\u200F' or '\u061C' or '\u2028' or '\u2029'
        || char.IsSurrogate(c);
}
