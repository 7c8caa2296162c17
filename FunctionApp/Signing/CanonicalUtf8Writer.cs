using System.Buffers;
using System.Text.Unicode;
using FunctionApp.Envelopes;

namespace FunctionApp.Signing;

/// <summary>
/// Writes an envelope's canonical JSON (CANONICAL.md) as UTF-8, straight into a pooled stream.
/// <para>
/// The canonical bytes are defined as what Newtonsoft.Json writes for the typed envelope with
/// <c>CamelCasePropertyNamesContractResolver</c>, <c>Formatting.None</c> and <c>DateTimeZoneHandling.Utc</c>.
/// Driving Newtonsoft's <c>JsonTextWriter</c> costs a state machine step per token, a per-character escaping scan
/// and a UTF-16 to UTF-8 pass; the envelope's shape is fixed, so this writer emits the same bytes directly:
/// constant member names, GUIDs and dates formatted to UTF-8 on the stack, and strings scanned for the few
/// characters Newtonsoft escapes with a vectorized search. The tests hold it to Newtonsoft's output byte for byte
/// (the shared vectors, and random envelopes full of characters that need escaping).
/// </para>
/// </summary>
internal static class CanonicalUtf8Writer
{
    private const int BufferSize = 16 * 1024;

    // Newtonsoft's default escaping with a double quote: '"', '\\', every char below U+0020, U+0085, U+2028, U+2029.
    private static readonly SearchValues<char> Escaped = SearchValues.Create(
        "\"\\\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f" +
        "\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\u0085\u2028\u2029");

    public static void Write(WidgetEnvelope envelope, Stream destination)
    {
        var output = new Output(destination);
        try
        {
            output.Raw("{\"widgets\":["u8);
            var widgets = envelope.Widgets;
            for (var i = 0; i < widgets.Count; i++)
            {
                if (i > 0)
                {
                    output.Raw(","u8);
                }

                WriteWidget(ref output, widgets[i]);
            }

            output.Raw("]}"u8);
            output.Flush();
        }
        finally
        {
            output.Return();
        }
    }

    private static void WriteWidget(ref Output output, Widget widget)
    {
        output.Raw("{\"id\":\""u8);
        output.Guid(widget.Id);
        output.Raw("\",\"property0\":"u8);
        output.String(widget.Property0);
        output.Raw(",\"property1\":"u8);
        output.String(widget.Property1);
        output.Raw(",\"property2\":"u8);
        output.String(widget.Property2);
        output.Raw(",\"property3\":"u8);
        output.String(widget.Property3);
        output.Raw(",\"property4\":"u8);
        output.String(widget.Property4);
        output.Raw(",\"property5\":"u8);
        output.String(widget.Property5);
        output.Raw(",\"property6\":"u8);
        output.String(widget.Property6);
        output.Raw(",\"property7\":"u8);
        output.String(widget.Property7);
        output.Raw(",\"property8\":"u8);
        output.String(widget.Property8);
        output.Raw(",\"property9\":"u8);
        output.String(widget.Property9);
        output.Raw(",\"createdUtc\":\""u8);
        output.Date(widget.CreatedUtc);
        output.Raw("\"}"u8);
    }

    /// <summary>A rented buffer in front of the destination stream; one copy into the pool's blocks per 16 KB.</summary>
    private struct Output
    {
        private readonly Stream _destination;
        private byte[] _buffer;
        private int _position;

        public Output(Stream destination)
        {
            _destination = destination;
            _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
            _position = 0;
        }

        public void Raw(ReadOnlySpan<byte> bytes)
        {
            Ensure(bytes.Length);
            bytes.CopyTo(_buffer.AsSpan(_position));
            _position += bytes.Length;
        }

        public void Guid(Guid value)
        {
            Ensure(36);
            value.TryFormat(_buffer.AsSpan(_position), out var written, "D");
            _position += written;
        }

        public void Date(DateTime value)
        {
            // Newtonsoft with DateTimeZoneHandling.Utc: local times are converted, unspecified ones taken as UTC.
            var utc = value.Kind == DateTimeKind.Local ? value.ToUniversalTime() : value;
            Ensure(28);
            var span = _buffer.AsSpan(_position);
            Digits(span, utc.Year, 4);
            span[4] = (byte)'-';
            Digits(span.Slice(5), utc.Month, 2);
            span[7] = (byte)'-';
            Digits(span.Slice(8), utc.Day, 2);
            span[10] = (byte)'T';
            Digits(span.Slice(11), utc.Hour, 2);
            span[13] = (byte)':';
            Digits(span.Slice(14), utc.Minute, 2);
            span[16] = (byte)':';
            Digits(span.Slice(17), utc.Second, 2);
            var length = 19;
            var fraction = (int)(utc.Ticks % TimeSpan.TicksPerSecond);
            if (fraction != 0)
            {
                // "FFFFFFF": up to 7 digits, trailing zeros dropped.
                var digits = 7;
                while (fraction % 10 == 0)
                {
                    fraction /= 10;
                    digits--;
                }

                span[length++] = (byte)'.';
                Digits(span.Slice(length), fraction, digits);
                length += digits;
            }

            span[length++] = (byte)'Z';
            _position += length;
        }

        public void String(string value)
        {
            Raw("\""u8);
            var rest = value.AsSpan();
            while (!rest.IsEmpty)
            {
                var escape = rest.IndexOfAny(Escaped);
                var plain = escape < 0 ? rest : rest.Slice(0, escape);
                Utf8Text(plain);
                if (escape < 0)
                {
                    break;
                }

                EscapeChar(rest[escape]);
                rest = rest.Slice(escape + 1);
            }

            Raw("\""u8);
        }

        public void Flush()
        {
            if (_position > 0)
            {
                _destination.Write(_buffer, 0, _position);
                _position = 0;
            }
        }

        public void Return()
        {
            var buffer = _buffer;
            _buffer = [];
            if (buffer.Length > 0)
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        private void Utf8Text(ReadOnlySpan<char> text)
        {
            while (!text.IsEmpty)
            {
                Ensure(Math.Min(text.Length * 3, BufferSize));
                var status = Utf8.FromUtf16(text, _buffer.AsSpan(_position), out var read, out var written, replaceInvalidSequences: false);
                _position += written;
                text = text.Slice(read);
                if (status == System.Buffers.OperationStatus.InvalidData)
                {
                    // The reader refuses these; an envelope built in code must not be signed as U+FFFD either.
                    throw new ArgumentException("A widget string contains an unpaired UTF-16 surrogate, which UTF-8 cannot represent.");
                }

                if (status == System.Buffers.OperationStatus.DestinationTooSmall)
                {
                    Flush();
                }
            }
        }

        private void EscapeChar(char c)
        {
            Ensure(6);
            var span = _buffer.AsSpan(_position);
            span[0] = (byte)'\\';
            var shortForm = c switch
            {
                '"' => (byte)'"',
                '\\' => (byte)'\\',
                '\b' => (byte)'b',
                '\t' => (byte)'t',
                '\n' => (byte)'n',
                '\f' => (byte)'f',
                '\r' => (byte)'r',
                _ => (byte)0,
            };
            if (shortForm != 0)
            {
                span[1] = shortForm;
                _position += 2;
                return;
            }

            span[1] = (byte)'u';
            const string Hex = "0123456789abcdef";
            span[2] = (byte)Hex[(c >> 12) & 0xF];
            span[3] = (byte)Hex[(c >> 8) & 0xF];
            span[4] = (byte)Hex[(c >> 4) & 0xF];
            span[5] = (byte)Hex[c & 0xF];
            _position += 6;
        }

        private void Ensure(int bytes)
        {
            if (_buffer.Length - _position < bytes)
            {
                Flush();
            }
        }

        private static void Digits(Span<byte> destination, int value, int count)
        {
            for (var i = count - 1; i >= 0; i--)
            {
                destination[i] = (byte)('0' + (value % 10));
                value /= 10;
            }
        }
    }
}
