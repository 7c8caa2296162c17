using System.Globalization;
using System.Text;
using WidgetSigning.Primitives;
using Newtonsoft.Json;

namespace WidgetSigning.Envelopes;

/// <summary>
/// Reads a widget envelope from a UTF-8 JSON stream with Newtonsoft's <see cref="JsonTextReader"/>, token by
/// token, so the body is never turned into one string. Validation is strict because the signature must
/// cover exactly what the caller sent: unknown, duplicate, missing or null members, values of the wrong
/// type, invalid UTF-8 and anything that would be rounded or replaced are rejected with the JSON path.
/// </summary>
internal sealed class WidgetEnvelopeReader
{
    private const int AllMembers = (1 << 12) - 1;
    private const int CreatedUtcIndex = 11;

    // The shortest widget in compact JSON is about 230 bytes (a GUID, ten empty strings, a date); the list is presized
    // from the body's length with this, so it does not grow (and copy) for real bodies.
    private const int MinWidgetBytes = 220;

    // A presized list never gets an array on the large object heap (8-byte references, below 85,000 bytes); bigger
    // envelopes grow from there.
    private const int MaxPresizedWidgets = 8 * 1024;

    // Throws on invalid bytes rather than replacing them with U+FFFD; the BOM flag only lets
    // StreamReader skip a leading UTF-8 BOM.
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: true, throwOnInvalidBytes: true);

    private static readonly string[] MemberNames =
    [
        "id", "property0", "property1", "property2", "property3", "property4",
        "property5", "property6", "property7", "property8", "property9", "createdUtc",
    ];

    private static readonly Dictionary<string, int> MemberIndex = CreateMemberIndex();

    private static readonly System.Buffers.SearchValues<char> PlainNameChars =
        System.Buffers.SearchValues.Create("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

    private readonly int _maxWidgets;
    private readonly int _maxEchoedChars;

    /// <summary>Creates a reader with the default limits (<see cref="EnvelopeOptions"/>).</summary>
    public WidgetEnvelopeReader()
        : this(new EnvelopeOptions())
    {
    }

    /// <summary>Creates a reader with the limits in <paramref name="options"/>.</summary>
    public WidgetEnvelopeReader(EnvelopeOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _maxWidgets = options.MaxWidgets;
        _maxEchoedChars = options.MaxEchoedChars;
    }

    /// <summary>Reads and validates one envelope; the stream is left open.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the input is not a valid envelope.</exception>
    public WidgetEnvelope Read(Stream utf8Json) => Read(utf8Json, sink: null);

    /// <summary>
    /// Reads and validates one envelope, handing each widget to <paramref name="sink"/> as soon as it is valid; the
    /// stream is left open. The envelope is valid only if this returns.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the input is not a valid envelope.</exception>
    public WidgetEnvelope Read(Stream utf8Json, IWidgetSink? sink) => new(Read(utf8Json, sink, keepWidgets: true, scanned: null).Widgets!);

    /// <summary>
    /// Reads and validates one envelope, handing each widget to <paramref name="sink"/> and keeping none, so a widget
    /// lives only until the sink lets it go (an envelope kept whole until the end of reading survives every collection on
    /// the way, and copying it was most of reading's GC time under load). The stream is left open. The
    /// envelope is valid only if this returns.
    /// </summary>
    /// <returns>The number of widgets read.</returns>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the input is not a valid envelope.</exception>
    public int ReadInto(Stream utf8Json, IWidgetSink sink)
    {
        ArgumentNullException.ThrowIfNull(sink);
        return Read(utf8Json, sink, keepWidgets: false, scanned: null).Count;
    }

    /// <summary>
    /// As <see cref="ReadInto(Stream, IWidgetSink)"/>, over <paramref name="scanned"/>, a stream that passes the body on
    /// and has its bytes scanned elsewhere (ahead, on a spare core); it is disposed here. The answers, errors included,
    /// are those of the other overload.
    /// </summary>
    internal int ReadInto(ScannedStream scanned, IWidgetSink sink)
    {
        ArgumentNullException.ThrowIfNull(scanned);
        ArgumentNullException.ThrowIfNull(sink);
        return Read(scanned, sink, keepWidgets: false, scanned).Count;
    }

    private (List<Widget>? Widgets, int Count) Read(Stream utf8Json, IWidgetSink? sink, bool keepWidgets, ScannedStream? scanned)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);

        // The scanner sees every byte once on its way to the decoder: linear, whatever stream this is. Ahead, another
        // core scans and this thread only waits for (or takes over) a chunk not scanned yet.
        using var scanner = scanned ?? new StrictJsonGuard(utf8Json);
        using var text = new StreamReader(scanner, StrictUtf8, detectEncodingFromByteOrderMarks: false, bufferSize: 4096, leaveOpen: true);
        using var reader = new JsonTextReader(text)
        {
            ArrayPool = JsonCharArrayPool.Instance,
            PropertyNameTable = NameTable.Instance,
            DateParseHandling = DateParseHandling.None,
            MaxDepth = 8,
            CloseInput = false,
        };

        var session = new Session(reader, scanner, this, keepWidgets ? ExpectedWidgets(utf8Json) : -1, sink);
        try
        {
            var read = session.ReadEnvelope();
            if (scanner.FirstViolationToken != 0)
            {
                // Seen after the last token Newtonsoft returned (trailing whitespace that is not JSON whitespace, say).
                throw session.Violation();
            }

            if (scanner.Truncated || scanner.FirstUnpairedString != 0)
            {
                // Unreachable by construction (either ends in an error above); kept so neither can ever be signed.
                throw Problems.InvalidEnvelope("The body could not be read in full.", "$");
            }

            return read;
        }
        catch (Exception ex) when (ex is JsonReaderException or ProblemException { Problem.Type: Problems.Types.InvalidEnvelope } && scanner.CutReason == StrictJsonGuard.Cut.Violation)
        {
            // The stream ended at the violation; whatever the reader made of the cut, the violation is the cause.
            throw session.Violation();
        }
        catch (JsonReaderException) when (scanner.FirstViolationToken != 0 && !scanner.Truncated)
        {
            // Newtonsoft tripped over what the scanner already named more precisely.
            throw session.Violation();
        }
        catch (JsonReaderException ex)
        {
            throw scanner.Truncated
                ? session.TooLongToken()
                : Problems.InvalidEnvelope(
                    $"The body is not valid JSON: {Echo(TrimNewtonsoftMessage(ex.Message), 4 * _maxEchoedChars)}", BoundedPath(ex.Path), ex);
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.InvalidEnvelope) && scanner.Truncated)
        {
            // Whatever the reader tripped over at the cut, the cause is the overlong token.
            throw session.TooLongToken();
        }
        catch (DecoderFallbackException ex)
        {
            var path = BoundedPath(reader.Path);
            throw Problems.InvalidEnvelope($"The body is not valid UTF-8 (near {path}).", path, ex);
        }
    }

    // A bound, not a count: the body's remaining bytes say at most how many widgets it can hold, and the limits cap it.
    private int ExpectedWidgets(Stream utf8Json)
    {
        if (!utf8Json.CanSeek)
        {
            return 0;
        }

        var remaining = utf8Json.Length - utf8Json.Position;
        return (int)Math.Clamp(remaining / MinWidgetBytes, 0, Math.Min(_maxWidgets, MaxPresizedWidgets));
    }

    private static string Echo(string? text, int maxLength) => EchoText.Of(text, maxLength);

    // Every part of a path but the last name is a known member or an index, so 32 characters more than the echo limit
    // keep "$.widgets[49999]." whole and cut only a client's long name.
    private string BoundedPath(string? newtonsoftPath) => EchoText.Of(ToJsonPath(newtonsoftPath), _maxEchoedChars + 32);

    /// <summary>
    /// One read: the Newtonsoft reader, the byte scanner under it, and the count of strings read so far. A negative
    /// <paramref name="expectedWidgets"/> keeps no list: the widgets go to <paramref name="sink"/> alone.
    /// </summary>
    private sealed class Session(JsonTextReader reader, ScannedStream scanner, WidgetEnvelopeReader owner, int expectedWidgets, IWidgetSink? sink)
    {
        // One per envelope, not per widget: every widget sets all ten before they are copied out (or it is rejected).
        private readonly string[] _properties = new string[10];
        private int _strings;
        private int _tokens;

        public (List<Widget>? Widgets, int Count) ReadEnvelope()
        {
            if (!Next())
            {
                throw Problems.InvalidEnvelope("The body is empty; expected a widget envelope.", "$");
            }

            if (reader.TokenType != JsonToken.StartObject)
            {
                throw Invalid("The envelope must be a JSON object with a 'widgets' array.");
            }

            List<Widget>? widgets = null;
            var count = -1;
            while (NextRequired() && reader.TokenType == JsonToken.PropertyName)
            {
                var name = PropertyName();
                if (!string.Equals(name, "widgets", StringComparison.OrdinalIgnoreCase))
                {
                    throw UnknownMember(name, "$", "an envelope has only 'widgets'");
                }

                if (count >= 0)
                {
                    throw Invalid("Duplicate member 'widgets' (names are case-insensitive).");
                }

                (widgets, count) = ReadWidgets(name);
            }

            if (count < 0)
            {
                throw Problems.InvalidEnvelope("Required member 'widgets' is missing.", "$.widgets");
            }

            // Anything after the root object is an error (Newtonsoft throws "Additional text ...").
            if (Next())
            {
                throw Invalid("Unexpected content after the envelope.");
            }

            return (widgets, count);
        }

        public ProblemException Violation() => Invalid(scanner.Violation ?? "The body is not JSON as RFC 8259 defines it.");

        public ProblemException TooLongToken() => scanner.CutReason == StrictJsonGuard.Cut.MemberName
            ? Problems.InvalidEnvelope(
                $"A member name is longer than {StrictJsonGuard.MaxMemberNameBytes} bytes; an envelope has only 'widgets', and a widget " +
                "id, property0 … property9 and createdUtc.",
                owner.BoundedPath(ParentPath()))
            : Invalid(
                $"The body has a token outside double-quoted strings (a number, a literal or single-quoted text) longer than " +
                $"{StrictJsonGuard.MaxUnquotedTokenBytes} bytes; every value of an envelope is a double-quoted JSON string.");

        // Where the cut name would have gone: the object itself, or, after a member's value, the object holding that member
        // (whose name is a known, plain one, so the last '.' separates it).
        private string? ParentPath()
        {
            var path = reader.Path;
            if (reader.TokenType == JsonToken.StartObject || string.IsNullOrEmpty(path))
            {
                return path;
            }

            var dot = path.LastIndexOf('.');
            return dot < 0 ? string.Empty : path[..dot];
        }

        private (List<Widget>? Widgets, int Count) ReadWidgets(string widgetsName)
        {
            NextRequired();
            if (reader.TokenType != JsonToken.StartArray)
            {
                throw Invalid(reader.TokenType == JsonToken.Null ? "'widgets' must be an array, not null." : "'widgets' must be an array.");
            }

            var widgets = expectedWidgets >= 0 ? new List<Widget>(expectedWidgets) : null;
            var count = 0;
            while (NextRequired() && reader.TokenType != JsonToken.EndArray)
            {
                if (reader.TokenType != JsonToken.StartObject)
                {
                    throw Invalid("Each widget must be a JSON object.");
                }

                if (count == owner._maxWidgets)
                {
                    throw Invalid(string.Create(
                        CultureInfo.InvariantCulture,
                        $"The envelope has more than {owner._maxWidgets:N0} widgets, the limit (setting {EnvelopeOptions.SectionName}:{nameof(EnvelopeOptions.MaxWidgets)}); sign it in parts."));
                }

                var widget = ReadWidget(widgetsName, count++);
                widgets?.Add(widget);
                sink?.Add(widget);
            }

            return (widgets, count);
        }

        private Widget ReadWidget(string widgetsName, int widgetIndex)
        {
            var seen = 0;
            var id = Guid.Empty;
            var created = default(DateTime);
            var properties = _properties;
            var expected = 0;

            while (NextRequired() && reader.TokenType == JsonToken.PropertyName)
            {
                var name = PropertyName();

                // Members usually arrive in canonical order, and the name table hands out its own instance for a known
                // spelling: one reference comparison instead of a case-insensitive hash. Any other spelling or order
                // takes the dictionary, with the same result.
                int index;
                if (expected < MemberNames.Length && ReferenceEquals(name, MemberNames[expected]))
                {
                    index = expected;
                }
                else if (!MemberIndex.TryGetValue(name, out index))
                {
                    throw UnknownMember(name, string.Create(CultureInfo.InvariantCulture, $"$.{widgetsName}[{widgetIndex}]"), "a widget has id, property0 … property9 and createdUtc");
                }

                if ((seen & (1 << index)) != 0)
                {
                    throw Invalid($"Duplicate member '{MemberNames[index]}' (names are case-insensitive).");
                }

                seen |= 1 << index;
                expected = index + 1;
                var value = ReadString(MemberNames[index]);
                if (index == 0)
                {
                    if (!TryParseGuid(value, out id))
                    {
                        throw Invalid("'id' must be a GUID in the form D, N, B or P (32 hex digits, with hyphens, braces or parentheses as .NET formats them), nothing else inside the quotes.");
                    }
                }
                else if (index == CreatedUtcIndex)
                {
                    if (!IsoDateTimeParser.TryParse(value, out created, out var error))
                    {
                        throw Invalid($"'createdUtc' {error}.");
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
                throw Problems.InvalidEnvelope(
                    $"The widget lacks required member(s): {string.Join(", ", missing)}.",
                    owner.BoundedPath(string.Create(CultureInfo.InvariantCulture, $"{widgetsName}[{widgetIndex}]")));
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

        private string ReadString(string member)
        {
            NextRequired();
            switch (reader.TokenType)
            {
                case JsonToken.String when reader.QuoteChar == '"':
                    var value = (string)reader.Value!;
                    if (HasUnpairedSurrogate(value))
                    {
                        // UTF-8 cannot carry a lone surrogate; the signed text would differ from what was sent.
                        throw Invalid($"'{member}' contains an unpaired UTF-16 surrogate.");
                    }

                    return value;
                case JsonToken.String:
                    throw Invalid($"'{member}' uses single quotes; JSON strings use double quotes.");
                case JsonToken.Null:
                    throw Invalid($"'{member}' must not be null.");
                default:
                    throw Invalid($"'{member}' must be a JSON string.");
            }
        }

        private string PropertyName()
        {
            if (reader.QuoteChar != '"')
            {
                throw Invalid("Member names must be double-quoted JSON strings.");
            }

            return (string)reader.Value!;
        }

        private bool Next()
        {
            if (!reader.Read())
            {
                return false;
            }

            // Tokens match the scanner's count one for one up to its first violation, so this names the path there.
            var violation = scanner.FirstViolationToken;
            if (++_tokens >= violation && violation != 0)
            {
                throw Violation();
            }

            switch (reader.TokenType)
            {
                case JsonToken.Comment:
                    throw Invalid("Comments are not allowed in JSON.");
                case JsonToken.PropertyName or JsonToken.String:
                    // The scanner counted the same double-quoted strings on the bytes; by the time Newtonsoft hands over
                    // string number N, all of its bytes have been through the scanner.
                    _strings++;
                    var unpaired = scanner.FirstUnpairedString;
                    if (unpaired != 0 && unpaired <= _strings)
                    {
                        // Newtonsoft replaced it with U+FFFD: signing would cover something other than what was sent.
                        throw Invalid("The string contains an unpaired UTF-16 surrogate escape (a \\uD800-\\uDFFF escape without its other half).");
                    }

                    break;
            }

            return true;
        }

        private bool NextRequired() =>
            Next() ? true : throw Invalid("The body is not valid JSON: it ends before the envelope is complete.");

        private ProblemException Invalid(string message) => Problems.InvalidEnvelope(message, owner.BoundedPath(reader.Path));

        // The path is built from the parent and the cut name: a client's megabyte-long name is never copied whole again.
        private ProblemException UnknownMember(string name, string parentPath, string expected)
        {
            var echoed = Echo(name, owner._maxEchoedChars);
            var plain = name.Length > 0 && name.AsSpan().IndexOfAnyExcept(PlainNameChars) < 0;
            var path = plain
                ? $"{parentPath}.{echoed}"
                : $"{parentPath}['{echoed.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("'", "\\'", StringComparison.Ordinal)}']";
            return Problems.InvalidEnvelope($"Unknown member '{echoed}'; {expected}.", path);
        }
    }

    // docs/signing-contract.md: exactly one of the forms D, N, B, P, either letter case, nothing else inside the quotes. The length picks
    // the form and every other character must be a hex digit, so Guid's own leniencies (surrounding whitespace, the X form,
    // a sign or 0x inside a group) never apply.
    internal static bool TryParseGuid(string value, out Guid id)
    {
        id = default;
        var format = value.Length switch
        {
            32 => "N",
            36 => "D",
            38 when value[0] == '{' && value[37] == '}' => "B",
            38 when value[0] == '(' && value[37] == ')' => "P",
            _ => null,
        };
        if (format is null)
        {
            return false;
        }

        var inner = format is "B" or "P" ? value.AsSpan(1, 36) : value.AsSpan();
        for (var i = 0; i < inner.Length; i++)
        {
            var hyphen = format != "N" && i is 8 or 13 or 18 or 23;
            if (hyphen ? inner[i] != '-' : !char.IsAsciiHexDigit(inner[i]))
            {
                return false;
            }
        }

        return Guid.TryParseExact(value, format, out id);
    }

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
