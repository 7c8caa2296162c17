using Newtonsoft.Json;

namespace FunctionApp.Signing;

/// <summary>
/// A <see cref="JsonTextWriter"/> that writes <see cref="Guid"/> values without allocating. Newtonsoft's own
/// <c>WriteValue(Guid)</c> formats each one into a new string; this writes the same 36 lowercase
/// <c>D</c>-form characters from a stack buffer, after letting the base class write any delimiter.
/// Everything else (escaping, dates, structure) is Newtonsoft's own code.
/// </summary>
internal sealed class CanonicalJsonTextWriter : JsonTextWriter
{
    private readonly TextWriter _output;

    public CanonicalJsonTextWriter(TextWriter output)
        : base(output)
    {
        _output = output;
        ArrayPool = JsonCharArrayPool.Instance;
        Formatting = Formatting.None;
        DateFormatHandling = DateFormatHandling.IsoDateFormat;
        DateTimeZoneHandling = DateTimeZoneHandling.Utc;
        StringEscapeHandling = StringEscapeHandling.Default;
        CloseOutput = false;
        AutoCompleteOnClose = false;
    }

    public override void WriteValue(Guid value)
    {
        // Writes the ',' (or nothing) and advances the writer's state exactly as WriteValue would.
        SetWriteState(JsonToken.String, null!);
        Span<char> buffer = stackalloc char[38];
        buffer[0] = '"';
        value.TryFormat(buffer.Slice(1), out _, "D");
        buffer[37] = '"';
        _output.Write(buffer);
    }
}
