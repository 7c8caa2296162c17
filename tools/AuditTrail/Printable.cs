using System.Text;

namespace AuditTrail;

/// <summary>Makes a value read from the store safe to print: control, format and lone surrogate characters are escaped (<c>\u001B</c>), long values are cut.</summary>
internal static class Printable
{
    /// <summary>The most characters of one stored value that are printed.</summary>
    public const int MaxChars = 160;

    /// <summary><paramref name="value"/> cleaned for a terminal; <c>null</c> for null.</summary>
    public static string Clean(string? value)
    {
        if (value is null)
        {
            return "null";
        }

        var text = new StringBuilder(Math.Min(value.Length, MaxChars) + 1);
        foreach (var c in value.AsSpan(0, Math.Min(value.Length, MaxChars)))
        {
            var category = char.GetUnicodeCategory(c);
            if (char.IsControl(c) || c == '\\' || category is System.Globalization.UnicodeCategory.Format or System.Globalization.UnicodeCategory.Surrogate)
            {
                text.Append(System.Globalization.CultureInfo.InvariantCulture, $"\\u{(int)c:X4}");
            }
            else
            {
                text.Append(c);
            }
        }

        if (value.Length > MaxChars)
        {
            text.Append('…');
        }

        return text.ToString();
    }
}
