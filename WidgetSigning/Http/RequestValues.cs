using System.Globalization;
using Microsoft.Extensions.Primitives;
using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>Reading one value of a header or query parameter, where a repeated one is a client error, not a choice to make.</summary>
internal static class RequestValues
{
    /// <summary>The 400's wording for a header: "The webhook-id header must be given once."</summary>
    public const string HeaderWording = "The {0} header must be given once.";

    /// <summary>The 400's wording for a verify field, a header or query parameter: "'X-Signature' must be given once."</summary>
    public const string FieldWording = "'{0}' must be given once.";

    /// <summary>
    /// The value, null when absent. Given more than once, a 400 from <paramref name="wording"/> (a format naming
    /// <paramref name="name"/>), built only then so a well-formed request pays nothing for it.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: the value is given more than once.</exception>
    public static string? Single(StringValues values, string name, string wording) => values.Count switch
    {
        0 => null,
        1 => values[0],
        _ => throw Problems.InvalidRequest(string.Format(CultureInfo.InvariantCulture, wording, name)),
    };

    /// <summary>
    /// A header's value, as <see cref="Single"/>; also refuses one value holding ", ", which none of our headers' formats
    /// allows: a host that forwards the request (the isolated app's) joins a repeated header into one line with ", ",
    /// so this is how a header given twice arrives there, and the 400 should say that, not that the format is wrong.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: the header is given more than once.</exception>
    public static string? SingleHeader(StringValues values, string name, string wording)
    {
        var value = Single(values, name, wording);
        return value is not null && value.Contains(", ", StringComparison.Ordinal)
            ? throw Problems.InvalidRequest(string.Format(CultureInfo.InvariantCulture, wording, name) + " (A host that forwards the request joins a repeated header with \", \".)")
            : value;
    }
}
