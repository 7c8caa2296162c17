namespace FunctionApp.Envelopes;

/// <summary>
/// A read-only pass-through stream that inspects the raw JSON bytes once, as the reader pulls them, for the two things
/// Newtonsoft would otherwise hide or make expensive:
/// <list type="bullet">
/// <item><c>\uD800</c>-style escapes that do not form a surrogate pair. Newtonsoft silently turns them into U+FFFD, so
/// the signed text would differ from what was sent; a real U+FFFD (raw or <c>\ufffd</c>) is fine. The scanner records
/// the ordinal of the first double-quoted string holding one, which the reader compares with its own count of string
/// tokens to name the exact JSON path.</item>
/// <item>Unquoted tokens (numbers, literals) longer than <see cref="MaxUnquotedTokenBytes"/>. An envelope has none
/// (every value is a string), and Newtonsoft parses a long integer as a <c>BigInteger</c> in time quadratic in its length,
/// so the stream ends there: the reader then meets a short token in that place and rejects it.</item>
/// </list>
/// Linear in the body and independent of the underlying stream's type: nothing here needs to see a buffer.
/// </summary>
internal sealed class SurrogateEscapeScanner : Stream
{
    /// <summary>The longest run of bytes outside strings, other than whitespace and punctuation, that is passed on.</summary>
    public const int MaxUnquotedTokenBytes = 64;

    private readonly Stream _inner;
    private State _state;
    private bool _pendingHigh;
    private int _hexCount;
    private int _hexValue;
    private int _unquotedRun;
    private int _strings;

    /// <summary>Wraps <paramref name="inner"/>, which is left open.</summary>
    public SurrogateEscapeScanner(Stream inner)
    {
        ArgumentNullException.ThrowIfNull(inner);
        _inner = inner;
    }

    private enum State : byte
    {
        Outside,
        InString,
        Escape,
        Unicode,
    }

    /// <summary>The 1-based ordinal of the first double-quoted string with an unpaired surrogate escape; 0 while none was seen.</summary>
    public int FirstUnpairedString { get; private set; }

    /// <summary>True once an unquoted token over <see cref="MaxUnquotedTokenBytes"/> was met; the stream ended before it.</summary>
    public bool Truncated { get; private set; }

    /// <inheritdoc />
    public override bool CanRead => true;

    /// <inheritdoc />
    public override bool CanSeek => false;

    /// <inheritdoc />
    public override bool CanWrite => false;

    /// <inheritdoc />
    public override long Length => throw new NotSupportedException();

    /// <inheritdoc />
    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    /// <summary>Scans all of <paramref name="json"/> at once (tests and callers that already hold the bytes).</summary>
    /// <returns>True if it has an unpaired surrogate escape.</returns>
    public static bool HasUnpairedSurrogateEscape(ReadOnlySpan<byte> json)
    {
        using var scanner = new SurrogateEscapeScanner(Null);
        scanner.Scan(json);
        scanner.EndOfInput();
        return scanner.FirstUnpairedString != 0;
    }

    /// <inheritdoc />
    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    /// <inheritdoc />
    public override int Read(Span<byte> buffer)
    {
        if (Truncated)
        {
            return 0;
        }

        var read = _inner.Read(buffer);
        if (read == 0)
        {
            EndOfInput();
            return 0;
        }

        var passed = Scan(buffer[..read]);
        if (passed < read)
        {
            Truncated = true;
        }

        return passed;
    }

    /// <inheritdoc />
    public override void Flush()
    {
    }

    /// <inheritdoc />
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <inheritdoc />
    public override void SetLength(long value) => throw new NotSupportedException();

    /// <inheritdoc />
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <summary>Advances the state over <paramref name="data"/>; returns how many bytes may be passed on.</summary>
    private int Scan(ReadOnlySpan<byte> data)
    {
        var i = 0;
        while (i < data.Length)
        {
            switch (_state)
            {
                case State.Outside:
                    var b = data[i];
                    if (b == (byte)'"')
                    {
                        _state = State.InString;
                        _strings++;
                        _unquotedRun = 0;
                    }
                    else if (b is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n' or (byte)'{' or (byte)'}' or (byte)'[' or (byte)']' or (byte)',' or (byte)':')
                    {
                        _unquotedRun = 0;
                    }
                    else if (++_unquotedRun > MaxUnquotedTokenBytes)
                    {
                        return i;
                    }

                    i++;
                    break;

                case State.InString:
                    if (_pendingHigh && data[i] != (byte)'\\')
                    {
                        // A high surrogate escape must be followed at once by the low one, as another escape.
                        Unpaired();
                    }

                    // The bulk of a body: vectorized skip to the next quote or backslash.
                    var next = data[i..].IndexOfAny((byte)'"', (byte)'\\');
                    if (next < 0)
                    {
                        return data.Length;
                    }

                    i += next;
                    _state = data[i] == (byte)'"' ? State.Outside : State.Escape;
                    i++;
                    break;

                case State.Escape:
                    if (data[i] == (byte)'u')
                    {
                        _state = State.Unicode;
                        _hexCount = 0;
                        _hexValue = 0;
                    }
                    else
                    {
                        // "\\", "\n", "\"", …: not the low half a pending high surrogate needs.
                        if (_pendingHigh)
                        {
                            Unpaired();
                        }

                        _state = State.InString;
                    }

                    i++;
                    break;

                case State.Unicode:
                    var digit = HexValue(data[i]);
                    if (digit < 0)
                    {
                        // Not a valid escape; Newtonsoft rejects it. Re-read this byte as string content.
                        if (_pendingHigh)
                        {
                            Unpaired();
                        }

                        _state = State.InString;
                        break;
                    }

                    _hexValue = (_hexValue << 4) | digit;
                    i++;
                    if (++_hexCount == 4)
                    {
                        CompleteEscape(_hexValue);
                        _state = State.InString;
                    }

                    break;
            }
        }

        return data.Length;
    }

    private void CompleteEscape(int code)
    {
        var isHigh = code is >= 0xD800 and <= 0xDBFF;
        var isLow = code is >= 0xDC00 and <= 0xDFFF;
        if (_pendingHigh)
        {
            _pendingHigh = false;
            if (!isLow)
            {
                Unpaired();
            }
            else
            {
                return;
            }
        }
        else if (isLow)
        {
            Unpaired();
            return;
        }

        _pendingHigh = isHigh;
    }

    private void EndOfInput()
    {
        if (_pendingHigh)
        {
            Unpaired();
        }
    }

    private void Unpaired()
    {
        _pendingHigh = false;
        if (FirstUnpairedString == 0)
        {
            FirstUnpairedString = _strings;
        }
    }

    private static int HexValue(byte b) => b switch
    {
        >= (byte)'0' and <= (byte)'9' => b - '0',
        >= (byte)'a' and <= (byte)'f' => b - 'a' + 10,
        >= (byte)'A' and <= (byte)'F' => b - 'A' + 10,
        _ => -1,
    };
}
