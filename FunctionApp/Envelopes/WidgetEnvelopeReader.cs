using System.Globalization;
using System.Text;
using FunctionApp.Primitives;
using Newtonsoft.Json;

namespace FunctionApp.Envelopes;

/// <summary>
/// Reads a widget envelope from a UTF-8 JSON stream with Newtonsoft's <see cref="JsonTextReader"/>, token by
/// token, so the body is never turned into one string. Validation is strict because the signature must
/// cover exactly what the caller sent: unknown, duplicate, missing or null members, values of the wrong
/// type, invalid UTF-8 and anything that would be rounded or replaced are rejected with the JSON path.
/// </summary>
public sealed class WidgetEnvelopeReader
{
    private const int AllMembers = (1 << 12) - 1;
    private const int CreatedUtcIndex = 11;

    // Throws on invalid bytes rather than replacing them with U+FFFD; the BOM flag only lets
    // StreamReader skip a leading UTF-8 BOM.
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: true, throwOnInvalidBytes: true);

    private static readonly string[] MemberNames =
    [
        "id", "property0", "property1", "property2", "property3", "property4",
        "property5", "property6", "property7", "property8", "property9", "createdUtc",
    ];

    private static readonly Dictionary<string, int> MemberIndex = CreateMemberIndex();

    /// <summary>Reads and validates one envelope; the stream is left open.</summary>
    /// <exception cref="EnvelopeFormatException">The input is not a valid envelope.</exception>
    public WidgetEnvelope Read(Stream utf8Json)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);
        using var text = new StreamReader(utf8Json, StrictUtf8, detectEncodingFromByteOrderMarks: false, bufferSize: 4096, leaveOpen: true);
        using var reader = new JsonTextReader(text)
        {
            ArrayPool = JsonCharArrayPool.Instance,
            PropertyNameTable = NameTable.Instance,
            DateParseHandling = DateParseHandling.None,
            MaxDepth = 8,
            CloseInput = false,
        };

        try
        {
            return ReadEnvelope(reader, utf8Json);
        }
        catch (JsonReaderException ex)
        {
            throw new EnvelopeFormatException(
                $"The body is not valid JSON: {TrimNewtonsoftMessage(ex.Message)}", ToJsonPath(ex.Path), ex);
        }
        catch (DecoderFallbackException ex)
        {
            throw new EnvelopeFormatException($"The body is not valid UTF-8 (near {ToJsonPath(reader.Path)}).", ToJsonPath(reader.Path), ex);
        }
    }

    private static WidgetEnvelope ReadEnvelope(JsonTextReader reader, Stream raw)
    {
        if (!Next(reader))
        {
            throw new EnvelopeFormatException("The body is empty; expected a widget envelope.", "$");
        }

        if (reader.TokenType != JsonToken.StartObject)
        {
            throw Invalid(reader, "The envelope must be a JSON object with a 'widgets' array.");
        }

        List<Widget>? widgets = null;
        while (NextRequired(reader) && reader.TokenType == JsonToken.PropertyName)
        {
            var name = PropertyName(reader);
            if (!string.Equals(name, "widgets", StringComparison.OrdinalIgnoreCase))
            {
                throw Invalid(reader, $"Unknown member '{name}'; an envelope has only 'widgets'.");
            }

            if (widgets is not null)
            {
                throw Invalid(reader, "Duplicate member 'widgets' (names are case-insensitive).");
            }

            widgets = ReadWidgets(reader, raw, name);
        }

        if (widgets is null)
        {
            throw new EnvelopeFormatException("Required member 'widgets' is missing.", "$.widgets");
        }

        // Anything after the root object is an error (Newtonsoft throws "Additional text ...").
        if (Next(reader))
        {
            throw Invalid(reader, "Unexpected content after the envelope.");
        }

        return new WidgetEnvelope(widgets);
    }

    private static List<Widget> ReadWidgets(JsonTextReader reader, Stream raw, string widgetsName)
    {
        NextRequired(reader);
        if (reader.TokenType != JsonToken.StartArray)
        {
            throw Invalid(reader, reader.TokenType == JsonToken.Null ? "'widgets' must be an array, not null." : "'widgets' must be an array.");
        }

        var widgets = new List<Widget>();
        while (NextRequired(reader) && reader.TokenType != JsonToken.EndArray)
        {
            if (reader.TokenType != JsonToken.StartObject)
            {
                throw Invalid(reader, "Each widget must be a JSON object.");
            }

            widgets.Add(ReadWidget(reader, raw, widgetsName, widgets.Count));
        }

        return widgets;
    }

    private static Widget ReadWidget(JsonTextReader reader, Stream raw, string widgetsName, int widgetIndex)
    {
        var seen = 0;
        var id = Guid.Empty;
        var created = default(DateTime);
        var properties = new string[10];

        while (NextRequired(reader) && reader.TokenType == JsonToken.PropertyName)
        {
            var name = PropertyName(reader);
            if (!MemberIndex.TryGetValue(name, out var index))
            {
                throw Invalid(reader, $"Unknown member '{name}'; a widget has id, property0 … property9 and createdUtc.");
            }

            if ((seen & (1 << index)) != 0)
            {
                throw Invalid(reader, $"Duplicate member '{MemberNames[index]}' (names are case-insensitive).");
            }

            seen |= 1 << index;
            var value = ReadString(reader, MemberNames[index], raw);
            if (index == 0)
            {
                if (!Guid.TryParse(value, out id))
                {
                    throw Invalid(reader, "'id' must be a GUID.");
                }
            }
            else if (index == CreatedUtcIndex)
            {
                if (!IsoDateTimeParser.TryParse(value, out created, out var error))
                {
                    throw Invalid(reader, $"'createdUtc' {error}.");
                }
            }
            else
            {
                properties[index - 1] = value;
            }
        }

        if (seen != AllMembers)
        {
            var missing = new List<string>();
            for (var i = 0; i < MemberNames.Length; i++)
            {
                if ((seen & (1 << i)) == 0)
                {
                    missing.Add(MemberNames[i]);
                }
            }

            // The path is built only here: asking the reader for it per widget would allocate on every one.
            throw new EnvelopeFormatException(
                $"The widget lacks required member(s): {string.Join(", ", missing)}.",
                ToJsonPath(string.Create(CultureInfo.InvariantCulture, $"{widgetsName}[{widgetIndex}]")));
        }

        return new Widget
        {
            Id = id,
            Property0 = properties[0],
            Property1 = properties[1],
            Property2 = properties[2],
            Property3 = properties[3],
            Property4 = properties[4],
            Property5 = properties[5],
            Property6 = properties[6],
            Property7 = properties[7],
            Property8 = properties[8],
            Property9 = properties[9],
            CreatedUtc = created,
        };
    }

    private static string ReadString(JsonTextReader reader, string member, Stream raw)
    {
        NextRequired(reader);
        switch (reader.TokenType)
        {
            case JsonToken.String when reader.QuoteChar == '"':
                var value = (string)reader.Value!;
                if (HasUnpairedSurrogate(value) ||
                    (value.Contains('\uFFFD', StringComparison.Ordinal) && SurrogateEscapeScanner.MayHaveUnpairedSurrogateEscape(raw)))
                {
                    // UTF-8 cannot carry a lone surrogate, and Newtonsoft replaces an escaped one with U+FFFD:
                    // either way the signed text would differ from what was sent.
                    throw Invalid(reader, $"'{member}' contains an unpaired UTF-16 surrogate escape.");
                }

                return value;
            case JsonToken.String:
                throw Invalid(reader, $"'{member}' uses single quotes; JSON strings use double quotes.");
            case JsonToken.Null:
                throw Invalid(reader, $"'{member}' must not be null.");
            default:
                throw Invalid(reader, $"'{member}' must be a JSON string.");
        }
    }

    private static string PropertyName(JsonTextReader reader)
    {
        if (reader.QuoteChar != '"')
        {
            throw Invalid(reader, "Member names must be double-quoted JSON strings.");
        }

        return (string)reader.Value!;
    }

    private static bool Next(JsonTextReader reader)
    {
        if (!reader.Read())
        {
            return false;
        }

        if (reader.TokenType == JsonToken.Comment)
        {
            throw Invalid(reader, "Comments are not allowed in JSON.");
        }

        return true;
    }

    private static bool NextRequired(JsonTextReader reader) =>
        Next(reader) ? true : throw Invalid(reader, "The body is not valid JSON: it ends before the envelope is complete.");

    private static bool HasUnpairedSurrogate(string value)
    {
        var span = value.AsSpan();
        var first = span.IndexOfAnyInRange('\uD800', '\uDFFF');
        if (first < 0)
        {
            return false;
        }

        for (var i = first; i < span.Length; i++)
        {
            if (char.IsHighSurrogate(span[i]) && i + 1 < span.Length && char.IsLowSurrogate(span[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(span[i]))
            {
                return true;
            }
        }

        return false;
    }

    private static EnvelopeFormatException Invalid(JsonTextReader reader, string message) =>
        new(message, ToJsonPath(reader.Path));

    internal static string ToJsonPath(string? newtonsoftPath) =>
        string.IsNullOrEmpty(newtonsoftPath) ? "$" : newtonsoftPath[0] == '[' ? "$" + newtonsoftPath : "$." + newtonsoftPath;

    // Newtonsoft appends "Path 'x', line 1, position 2." – the path is reported separately.
    private static string TrimNewtonsoftMessage(string message)
    {
        var at = message.IndexOf(" Path '", StringComparison.Ordinal);
        return at > 0 ? message[..at] : message;
    }

    private static Dictionary<string, int> CreateMemberIndex()
    {
        var index = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < MemberNames.Length; i++)
        {
            index.Add(MemberNames[i], i);
        }

        return index;
    }

    /// <summary>Interns the expected member names so reading them allocates nothing.</summary>
    private sealed class NameTable : DefaultJsonNameTable
    {
        public static readonly NameTable Instance = new();

        private NameTable()
        {
            Add("widgets");
            Add("Widgets");
            foreach (var name in MemberNames)
            {
                Add(name);
                Add(char.ToUpperInvariant(name[0]) + name[1..]);
            }
        }
    }
}
