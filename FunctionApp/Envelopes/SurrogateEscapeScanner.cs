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
/// <item>Member names longer than <see cref="MaxMemberNameBytes"/> (the longest envelope member, fully escaped, is 60
/// bytes). The stream ends inside such a name, so a megabyte-long name is never decoded, copied and hashed.</item>
/// </list>
/// Linear in the body and independent of the underlying stream's type: nothing here needs to see a buffer.
/// </summary>
internal sealed class SurrogateEscapeScanner : Stream
{
    /// <summary>The longest run of bytes outside strings, other than whitespace and punctuation, that is passed on.</summary>
    public const int MaxUnquotedTokenBytes = 64;

    /// <summary>The longest member name that is passed on, in bytes as sent (escapes included).</summary>
    public const int MaxMemberNameBytes = 64;

    // Containers deeper than this are not tracked for member-name positions (the reader refuses depth 9 anyway).
    private const int TrackedDepth = 64;

    private readonly Stream _inner;
    private State _state;
    private bool _pendingHigh;
    private int _hexCount;
    private int _hexValue;
    private int _unquotedRun;
    private int _strings;
    private int _depth;
    private ulong _objects;
    private bool _expectName;
    private bool _inName;
    private int _nameBytes;

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

    /// <summary>Why the stream was ended early.</summary>
    public enum Cut : byte
    {
        /// <summary>It was not.</summary>
        None,

        /// <summary>An unquoted token over <see cref="MaxUnquotedTokenBytes"/>.</summary>
        UnquotedToken,

        /// <summary>A member name over <see cref="MaxMemberNameBytes"/>.</summary>
        MemberName,
    }

    /// <summary>The 1-based ordinal of the first double-quoted string with an unpaired surrogate escape; 0 while none was seen.</summary>
    public int FirstUnpairedString { get; private set; }

    /// <summary>True once the stream was ended early (see <see cref="CutReason"/>).</summary>
    public bool Truncated => CutReason != Cut.None;

    /// <summary>Why the stream was ended early, if it was.</summary>
    public Cut CutReason { get; private set; }

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

        return Scan(buffer[..read]);
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
                        _inName = _expectName;
                        _nameBytes = 0;
                        _expectName = false;
                    }
                    else if (b is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n')
                    {
                        _unquotedRun = 0;
                    }
                    else if (b is (byte)'{' or (byte)'}' or (byte)'[' or (byte)']' or (byte)',' or (byte)':')
                    {
                        _unquotedRun = 0;
                        Structure(b);
                    }
                    else if (++_unquotedRun > MaxUnquotedTokenBytes)
                    {
                        CutReason = Cut.UnquotedToken;
                        return i;
                    }
                    else
                    {
                        _expectName = false;
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
                    if (_inName && _nameBytes + (next < 0 ? data.Length - i : next) > MaxMemberNameBytes)
                    {
                        CutReason = Cut.MemberName;
                        return i + (MaxMemberNameBytes - _nameBytes);
                    }

                    if (next < 0)
                    {
                        _nameBytes += data.Length - i;
                        return data.Length;
                    }

                    _nameBytes += next + 1;
                    i += next;
                    _state = data[i] == (byte)'"' ? State.Outside : State.Escape;
                    i++;
                    break;

                case State.Escape:
                    if (_inName && ++_nameBytes > MaxMemberNameBytes)
                    {
                        CutReason = Cut.MemberName;
                        return i;
                    }

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

                    if (_inName && ++_nameBytes > MaxMemberNameBytes)
                    {
                        CutReason = Cut.MemberName;
                        return i;
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

    // Tracks objects and arrays so a string is known to be a member name when it starts.
    private void Structure(byte b)
    {
        switch (b)
        {
            case (byte)'{':
            case (byte)'[':
                if (_depth < TrackedDepth)
                {
                    var bit = 1UL << _depth;
                    _objects = b == (byte)'{' ? _objects | bit : _objects & ~bit;
                }

                _depth++;
                _expectName = b == (byte)'{';
                break;
            case (byte)'}':
            case (byte)']':
                _depth = Math.Max(0, _depth - 1);
                _expectName = false;
                break;
            case (byte)',':
                _expectName = _depth is > 0 and <= TrackedDepth && (_objects & (1UL << (_depth - 1))) != 0;
                break;
            default:
                _expectName = false;
                break;
        }
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
