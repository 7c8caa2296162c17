using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Text.Unicode;

namespace WidgetSigning.Envelopes;

/// <summary>
/// Writes an envelope's canonical JSON (docs/signing-contract.md) as UTF-8, straight into the destination's own memory.
/// <para>
/// The canonical bytes are defined as what Newtonsoft.Json writes for the typed envelope with
/// <c>CamelCasePropertyNamesContractResolver</c>, <c>Formatting.None</c> and <c>DateTimeZoneHandling.Utc</c>.
/// Driving Newtonsoft's <c>JsonTextWriter</c> costs a state machine step per token, a per-character escaping scan
/// and a UTF-16 to UTF-8 pass; the envelope's shape is fixed, so this writer emits the same bytes directly:
/// constant member names, GUIDs and dates formatted to UTF-8 in place, and strings scanned for the few
/// characters Newtonsoft escapes with a vectorized search. The tests hold it to Newtonsoft's output byte for byte
/// (the shared vectors, and random envelopes full of characters that need escaping).
/// </para>
/// <para>
/// It asks the destination for memory only with <c>GetSpan()</c> (no size hint) and fills whatever it gets to the
/// last byte, splitting a token across two spans where needed. A hint larger than the rest of a
/// <c>RecyclableMemoryStream</c> block would make the stream lend a temporary block instead of its own, which
/// costs a copy and, if the stream is disposed before <c>Advance</c>, stays counted as in use.
/// </para>
/// </summary>
internal static class CanonicalUtf8Writer
{
    /// <summary>A lower bound on one widget's canonical bytes: every member present, empty strings, a whole-second date.</summary>
    public const int MinimumWidgetBytes = 231;

    // {"widgets":[]}
    private const int MinimumEnvelopeBytes = 14;
    // Newtonsoft's default escaping with a double quote: '"', '\\', every char below U+0020, U+0085, U+2028, U+2029.
    private static readonly SearchValues<char> Escaped = SearchValues.Create(
        "\"\\\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f" +
        "\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\u0085\u2028\u2029");

    /// <summary>A lower bound on <paramref name="envelope"/>'s canonical length (each widget's fixed members), to size a stream up front.</summary>
    public static long MinimumLength(WidgetEnvelope envelope) => MinimumEnvelopeBytes + ((long)envelope.Widgets.Count * MinimumWidgetBytes);

    /// <summary>Writes through a pooled 16 KB staging buffer into <paramref name="destination"/>.</summary>
    public static void Write(WidgetEnvelope envelope, Stream destination)
    {
        var staging = new StreamStagingWriter(destination);
        try
        {
            Write(envelope, staging);
        }
        finally
        {
            staging.Return();
        }
    }

    /// <summary>Writes into <paramref name="destination"/>'s memory; each <c>Advance</c> commits one span filled to the end (the last one excepted).</summary>
    public static void Write(WidgetEnvelope envelope, IBufferWriter<byte> destination)
    {
        var output = new Output(destination);
        output.Raw("{\"widgets\":["u8);
        if (envelope.Widgets is List<Widget> list)
        {
            WriteWidgets(ref output, CollectionsMarshal.AsSpan(list), first: true);
        }
        else
        {
            var widgets = envelope.Widgets;
            for (var i = 0; i < widgets.Count; i++)
            {
                WriteWidget(ref output, widgets[i], i > 0);
            }
        }

        output.Raw("]}"u8);
        output.Complete();
    }

    /// <summary>
    /// Writes the opening <c>{"widgets":[</c> of an envelope written in parts, as its widgets arrive: then
    /// <see cref="WriteWidgets(ReadOnlySpan{Widget}, bool, IBufferWriter{byte})"/> for each run of widgets in order, then <see cref="WriteEnd"/>. The bytes are those
    /// of <see cref="Write(WidgetEnvelope, IBufferWriter{byte})"/>; each call commits what it wrote.
    /// </summary>
    public static void WriteStart(IBufferWriter<byte> destination)
    {
        var output = new Output(destination);
        output.Raw("{\"widgets\":["u8);
        output.Complete();
    }

    /// <summary>Writes the next <paramref name="widgets"/>; <paramref name="first"/> when they begin the list.</summary>
    public static void WriteWidgets(ReadOnlySpan<Widget> widgets, bool first, IBufferWriter<byte> destination)
    {
        var output = new Output(destination);
        WriteWidgets(ref output, widgets, first);
        output.Complete();
    }

    /// <summary>Writes the closing <c>]}</c>.</summary>
    public static void WriteEnd(IBufferWriter<byte> destination)
    {
        var output = new Output(destination);
        output.Raw("]}"u8);
        output.Complete();
    }

    private static void WriteWidgets(ref Output output, ReadOnlySpan<Widget> widgets, bool first)
    {
        for (var i = 0; i < widgets.Length; i++)
        {
            WriteWidget(ref output, widgets[i], !first || i > 0);
        }
    }

    private static void WriteWidget(ref Output output, Widget widget, bool comma)
    {
        // Each constant carries the closing quote of the value before it and the opening quote of the next.
        output.Raw(comma ? ",{\"id\":\""u8 : "{\"id\":\""u8);
        output.Guid(widget.Id);
        output.Raw("\",\"property0\":\""u8);
        output.StringBody(widget.Property0);
        output.Raw("\",\"property1\":\""u8);
        output.StringBody(widget.Property1);
        output.Raw("\",\"property2\":\""u8);
        output.StringBody(widget.Property2);
        output.Raw("\",\"property3\":\""u8);
        output.StringBody(widget.Property3);
        output.Raw("\",\"property4\":\""u8);
        output.StringBody(widget.Property4);
        output.Raw("\",\"property5\":\""u8);
        output.StringBody(widget.Property5);
        output.Raw("\",\"property6\":\""u8);
        output.StringBody(widget.Property6);
        output.Raw("\",\"property7\":\""u8);
        output.StringBody(widget.Property7);
        output.Raw("\",\"property8\":\""u8);
        output.StringBody(widget.Property8);
        output.Raw("\",\"property9\":\""u8);
        output.StringBody(widget.Property9);
        output.Raw("\",\"createdUtc\":\""u8);
        output.Date(widget.CreatedUtc);
        output.Raw("\"}"u8);
    }

    private static int FormatDate(Span<byte> span, DateTime value)
    {
        // Newtonsoft with DateTimeZoneHandling.Utc: local times are converted, unspecified ones taken as UTC.
        var utc = value.Kind == DateTimeKind.Local ? value.ToUniversalTime() : value;
        // One calendar computation for all three (Year, Month and Day each repeat it).
        utc.Deconstruct(out var year, out var month, out var day);
        Digits(span, year, 4);
        span[4] = (byte)'-';
        Digits(span.Slice(5), month, 2);
        span[7] = (byte)'-';
        Digits(span.Slice(8), day, 2);
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
        return length;
    }

    private static int FormatEscape(Span<byte> span, char c)
    {
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
            return 2;
        }

        span[1] = (byte)'u';
        const string Hex = "0123456789abcdef";
        span[2] = (byte)Hex[(c >> 12) & 0xF];
        span[3] = (byte)Hex[(c >> 8) & 0xF];
        span[4] = (byte)Hex[(c >> 4) & 0xF];
        span[5] = (byte)Hex[c & 0xF];
        return 6;
    }

    private static void Digits(Span<byte> destination, int value, int count)
    {
        for (var i = count - 1; i >= 0; i--)
        {
            destination[i] = (byte)('0' + (value % 10));
            value /= 10;
        }
    }

    /// <summary>
    /// Copies <paramref name="source"/> as bytes if every char is printable ASCII other than '"' and '\\' (nothing
    /// Newtonsoft escapes, one UTF-8 byte each); false, with <paramref name="destination"/> partly overwritten, otherwise.
    /// <paramref name="destination"/> must hold <paramref name="source"/>'s length.
    /// </summary>
    private static bool TryCopyPlainAscii(ReadOnlySpan<char> source, Span<byte> destination)
    {
        var length = source.Length;
        if (length < Vector128<ushort>.Count || !Vector128.IsHardwareAccelerated)
        {
            for (var i = 0; i < length; i++)
            {
                var c = source[i];
                if ((uint)(c - 0x20) >= 0x5F || c == '"' || c == '\\')
                {
                    return false;
                }

                destination[i] = (byte)c;
            }

            return true;
        }

        ref var from = ref Unsafe.As<char, ushort>(ref MemoryMarshal.GetReference(source));
        ref var to = ref MemoryMarshal.GetReference(destination);
        var last = (nuint)(length - Vector128<ushort>.Count);
        var space = Vector128.Create((ushort)0x20);
        var printable = Vector128.Create((ushort)0x5F);
        var quote = Vector128.Create((ushort)'"');
        var backslash = Vector128.Create((ushort)'\\');
        nuint at = 0;
        while (true)
        {
            // The last block overlaps the one before it rather than leaving a scalar tail.
            var chars = Vector128.LoadUnsafe(ref from, at);
            var plain = Vector128.LessThan(chars - space, printable) & ~Vector128.Equals(chars, quote) & ~Vector128.Equals(chars, backslash);
            if (plain != Vector128<ushort>.AllBitsSet)
            {
                return false;
            }

            Unsafe.WriteUnaligned(ref Unsafe.Add(ref to, at), Vector128.Narrow(chars, chars).AsUInt64().ToScalar());
            if (at == last)
            {
                return true;
            }

            at = Math.Min(at + (nuint)Vector128<ushort>.Count, last);
        }
    }

    private static ArgumentException UnpairedSurrogate() =>
        // The reader refuses these; an envelope built in code must not be signed as U+FFFD either.
        new("A widget string contains an unpaired UTF-16 surrogate, which UTF-8 cannot represent.");

    /// <summary>The span being filled: the rest of the destination's current block.</summary>
    private ref struct Output
    {
        private const int MaxTokenBytes = 36; // a GUID; dates take at most 28, escapes 6, one scalar 4

        private readonly IBufferWriter<byte> _destination;
        private Span<byte> _span;
        private int _position;

        public Output(IBufferWriter<byte> destination)
        {
            _destination = destination;
            _span = destination.GetSpan();
            _position = 0;
        }

        public void Raw(scoped ReadOnlySpan<byte> bytes)
        {
            if (bytes.Length <= _span.Length - _position)
            {
                bytes.CopyTo(_span.Slice(_position));
                _position += bytes.Length;
            }
            else
            {
                Split(bytes);
            }
        }

        public void Guid(Guid value)
        {
            if (_span.Length - _position >= 36)
            {
                value.TryFormat(_span.Slice(_position), out var written, "D");
                _position += written;
            }
            else
            {
                Span<byte> scratch = stackalloc byte[MaxTokenBytes];
                value.TryFormat(scratch, out var written, "D");
                Split(scratch.Slice(0, written));
            }
        }

        public void Date(DateTime value)
        {
            if (_span.Length - _position >= 28)
            {
                _position += FormatDate(_span.Slice(_position), value);
            }
            else
            {
                Span<byte> scratch = stackalloc byte[MaxTokenBytes];
                Split(scratch.Slice(0, FormatDate(scratch, value)));
            }
        }

        /// <summary>A string's content, escaped, without its quotes.</summary>
        public void StringBody(string value)
        {
            // Most strings are short printable ASCII with nothing to escape: checked and narrowed 8 chars at a time.
            if (value.Length <= _span.Length - _position && TryCopyPlainAscii(value, _span.Slice(_position)))
            {
                _position += value.Length;
                return;
            }

            var rest = value.AsSpan();
            while (!rest.IsEmpty)
            {
                var escape = rest.IndexOfAny(Escaped);
                if (escape < 0)
                {
                    Utf8Text(rest);
                    return;
                }

                Utf8Text(rest.Slice(0, escape));
                Escape(rest[escape]);
                rest = rest.Slice(escape + 1);
            }
        }

        /// <summary>Commits what is written; asks for no more memory.</summary>
        public void Complete()
        {
            if (_position > 0)
            {
                _destination.Advance(_position);
                _position = 0;
            }

            _span = default;
        }

        private void Utf8Text(ReadOnlySpan<char> text)
        {
            while (true)
            {
                var status = Utf8.FromUtf16(text, _span.Slice(_position), out var read, out var written, replaceInvalidSequences: false);
                _position += written;
                if (status == OperationStatus.Done)
                {
                    return;
                }

                if (status == OperationStatus.InvalidData)
                {
                    throw UnpairedSurrogate();
                }

                // The next scalar does not fit in the rest of this span: encode it alone and split it over the next.
                text = text.Slice(read + SplitScalar(text.Slice(read)));
                if (text.IsEmpty)
                {
                    return;
                }
            }
        }

        private void Escape(char c)
        {
            Span<byte> scratch = stackalloc byte[6];
            Raw(scratch.Slice(0, FormatEscape(scratch, c)));
        }

        private int SplitScalar(ReadOnlySpan<char> text)
        {
            var chars = char.IsHighSurrogate(text[0]) && text.Length > 1 ? 2 : 1;
            Span<byte> scratch = stackalloc byte[4];
            if (Utf8.FromUtf16(text.Slice(0, chars), scratch, out _, out var bytes, replaceInvalidSequences: false) != OperationStatus.Done)
            {
                throw UnpairedSurrogate();
            }

            Split(scratch.Slice(0, bytes));
            return chars;
        }

        /// <summary>Fills the rest of the span with the first part of <paramref name="bytes"/>, commits it, continues in the next.</summary>
        private void Split(scoped ReadOnlySpan<byte> bytes)
        {
            while (true)
            {
                var room = _span.Length - _position;
                if (bytes.Length <= room)
                {
                    bytes.CopyTo(_span.Slice(_position));
                    _position += bytes.Length;
                    return;
                }

                bytes.Slice(0, room).CopyTo(_span.Slice(_position));
                bytes = bytes.Slice(room);
                _destination.Advance(_span.Length);
                _span = _destination.GetSpan();
                _position = 0;
            }
        }
    }

    /// <summary>A rented 16 KB buffer in front of a <see cref="Stream"/>: one <c>Write</c> per full buffer.</summary>
    private sealed class StreamStagingWriter(Stream destination) : IBufferWriter<byte>
    {
        private const int BufferSize = 16 * 1024;

        private byte[] _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
        private int _position;

        // The writer advances only a full span, or its last one: either way the bytes go on now.
        public void Advance(int count)
        {
            _position += count;
            if (_position > 0)
            {
                destination.Write(_buffer, 0, _position);
                _position = 0;
            }
        }

        public Memory<byte> GetMemory(int sizeHint = 0) => _buffer.AsMemory(_position);

        public Span<byte> GetSpan(int sizeHint = 0) => _buffer.AsSpan(_position);

        public void Return()
        {
            var buffer = _buffer;
            _buffer = [];
            if (buffer.Length > 0)
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
    }
}
