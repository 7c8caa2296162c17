using System.Globalization;

namespace WidgetSigning.Envelopes;

/// <summary>
/// Guards what the reader hands Newtonsoft: a read-only pass-through stream that checks the raw JSON bytes once, as the
/// reader pulls them, against four rules Newtonsoft would otherwise bend, hide or make expensive:
/// <list type="bullet">
/// <item>Strict JSON (RFC 8259). Newtonsoft also takes NaN, Infinity, hex, leading zeros, single quotes, comments, empty
/// and trailing commas, unquoted names, other spaces, raw control characters in strings and the <c>\'</c> escape; the
/// first such byte is recorded with the token it belongs to (<see cref="FirstViolationToken"/>), and inside a string
/// the stream ends there.</item>
/// <item>Surrogate escapes pair. Newtonsoft silently turns an unpaired <c>\uD800</c>-style escape into U+FFFD, so the
/// signed text would differ from what was sent; a real U+FFFD (raw or <c>\ufffd</c>) is fine. The ordinal of the first
/// string holding one is recorded, which the reader compares with its own count of string tokens to name the JSON path.</item>
/// <item>Unquoted tokens (numbers, literals) are at most <see cref="MaxUnquotedTokenBytes"/>. An envelope has none
/// (every value is a string), and Newtonsoft parses a long integer as a <c>BigInteger</c> in time quadratic in its length,
/// so the stream ends there: the reader then meets a short token in that place and rejects it.</item>
/// <item>Member names are at most <see cref="MaxMemberNameBytes"/> (the longest envelope member, fully escaped, is 60
/// bytes). The stream ends inside such a name, so a megabyte-long name is never decoded, copied and hashed.</item>
/// </list>
/// Linear in the body and independent of the underlying stream's type: nothing here needs to see a buffer.
/// </summary>
internal sealed class StrictJsonGuard : ScannedStream
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
    private int _tokens;
    private byte _lastStructure = (byte)'\0';
    private Literal _literal;
    private int _literalAt;
    private int _bomBytes;
    private int _firstViolationToken;
    private string? _violation;
    private int _firstUnpairedString;
    private Cut _cutReason;

    /// <summary>Wraps <paramref name="inner"/>, which is left open.</summary>
    public StrictJsonGuard(Stream inner)
    {
        ArgumentNullException.ThrowIfNull(inner);
        _inner = inner;
    }

    private const string UnquotedViolation =
        "The body is not valid JSON (RFC 8259): a value outside double quotes that is not true, false, null or a number (no NaN, Infinity, hex, leading zeros, " +
        "leading '+', or unquoted names).";

    private static readonly byte[] Utf8Bom = [0xEF, 0xBB, 0xBF];

    private static readonly string[] Words = ["true", "false", "null"];

    // A string ends at a quote, escapes at a backslash, and may not hold a raw control character.
    private static readonly System.Buffers.SearchValues<byte> StringStops = System.Buffers.SearchValues.Create(
        [(byte)'"', (byte)'\\', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]);

    private enum Literal : byte
    {
        Start,
        Minus,
        Zero,
        Integer,
        Dot,
        Fraction,
        Exponent,
        ExponentSign,
        ExponentDigits,
        True,
        False,
        Null,
        Failed,
    }

    private enum State : byte
    {
        Outside,
        InString,
        Escape,
        Unicode,
    }

    /// <inheritdoc />
    public override int FirstViolationToken => _firstViolationToken;

    /// <inheritdoc />
    public override string? Violation => _violation;

    /// <inheritdoc />
    public override int FirstUnpairedString => _firstUnpairedString;

    /// <inheritdoc />
    public override Cut CutReason => _cutReason;

    /// <summary>Scans all of <paramref name="json"/> at once (tests and callers that already hold the bytes).</summary>
    /// <returns>True if it has an unpaired surrogate escape.</returns>
    public static bool HasUnpairedSurrogateEscape(ReadOnlySpan<byte> json)
    {
        using var scanner = new StrictJsonGuard(Null);
        scanner.Scan(json);
        scanner.EndOfInput();
        return scanner.FirstUnpairedString != 0;
    }

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

    /// <summary>A copy of the state so far (<c>Pipeline/ScanAheadStream</c> replays a chunk from it to place an event exactly).</summary>
    internal StrictJsonGuard Snapshot() => (StrictJsonGuard)MemberwiseClone();

    /// <summary>
    /// Advances the state over <paramref name="data"/>; returns how many bytes may be passed on. The state after a run of
    /// bytes does not depend on how the run was cut into calls, and neither does the absolute position of a cut.
    /// </summary>
    internal int Scan(ReadOnlySpan<byte> data)
    {
        var i = 0;
        while (i < data.Length)
        {
            // Each step consumes at least one byte, or returns where the bytes passed on stop.
            var stop = _state switch
            {
                State.Outside => StepOutside(data, ref i),
                State.InString => StepInString(data, ref i),
                State.Escape => StepEscape(data, ref i),
                _ => StepUnicode(data, ref i),
            };
            if (stop >= 0)
            {
                return stop;
            }
        }

        return data.Length;
    }

    // One byte between tokens: the BOM, a string's opening quote, whitespace, punctuation, or a byte of an unquoted token.
    private int StepOutside(ReadOnlySpan<byte> data, ref int i)
    {
        var b = data[i];
        if (SkipsBom(b))
        {
            i++;
            return -1;
        }

        if (b == (byte)'"')
        {
            EndUnquoted();
            OpenString();
        }
        else if (b is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n')
        {
            EndUnquoted();
        }
        else if (b is (byte)'{' or (byte)'}' or (byte)'[' or (byte)']' or (byte)',' or (byte)':')
        {
            EndUnquoted();
            Separators(b);
            Structure(b);
        }
        else if (++_unquotedRun > MaxUnquotedTokenBytes)
        {
            // Bounded tokens: a long number is never handed to Newtonsoft's quadratic BigInteger parse.
            _cutReason = Cut.UnquotedToken;
            return i;
        }
        else
        {
            if (_unquotedRun == 1)
            {
                _tokens++;
                _lastStructure = (byte)'1';
                _literal = Literal.Start;
                _literalAt = 0;
            }

            UnquotedByte(b);
            _expectName = false;
        }

        i++;
        return -1;
    }

    // The UTF-8 byte order mark the decoder skips (RFC 8259 section 8.1 lets a parser ignore it), only before any token.
    private bool SkipsBom(byte b)
    {
        if (_bomBytes >= 3)
        {
            return false;
        }

        if (_tokens == 0 && _unquotedRun == 0 && b == Utf8Bom[_bomBytes])
        {
            _bomBytes++;
            return true;
        }

        _bomBytes = 3;
        return false;
    }

    private void OpenString()
    {
        _state = State.InString;
        _strings++;
        _tokens++;
        _lastStructure = (byte)'"';
        _inName = _expectName;
        _nameBytes = 0;
        _expectName = false;
    }

    // The bulk of a body: a vectorized skip to the next quote, backslash or raw control character.
    private int StepInString(ReadOnlySpan<byte> data, ref int i)
    {
        if (_pendingHigh && data[i] != (byte)'\\')
        {
            // A high surrogate escape must be followed at once by the low one, as another escape.
            Unpaired();
        }

        var next = data[i..].IndexOfAny(StringStops);
        if (_inName && _nameBytes + (next < 0 ? data.Length - i : next) > MaxMemberNameBytes)
        {
            _cutReason = Cut.MemberName;
            return i + (MaxMemberNameBytes - _nameBytes);
        }

        if (next < 0)
        {
            _nameBytes += data.Length - i;
            return data.Length;
        }

        _nameBytes += next + 1;
        i += next;
        if (data[i] < 0x20)
        {
            Violate(_tokens, string.Create(
                CultureInfo.InvariantCulture,
                $"A string holds a raw control character (U+{data[i]:X4}); JSON (RFC 8259) requires U+0000-U+001F escaped, e.g. \\u{data[i]:x4}."));

            // The stream ends here: a 16 MiB string of them is never decoded into a 32 MB one only to be refused.
            _cutReason = Cut.Violation;
            return i;
        }

        _state = data[i] == (byte)'"' ? State.Outside : State.Escape;
        i++;
        return -1;
    }

    // The byte after a backslash: \u starts a hex escape; the other seven letters RFC 8259 defines end the escape.
    private int StepEscape(ReadOnlySpan<byte> data, ref int i)
    {
        if (NameGrowsTooLong())
        {
            return i;
        }

        if (data[i] == (byte)'u')
        {
            _state = State.Unicode;
            _hexCount = 0;
            _hexValue = 0;
            i++;
            return -1;
        }

        if (data[i] is not ((byte)'"' or (byte)'\\' or (byte)'/' or (byte)'b' or (byte)'f' or (byte)'n' or (byte)'r' or (byte)'t'))
        {
            // Newtonsoft takes \' (and rejects the rest itself); RFC 8259 has only these eight and \u.
            Violate(_tokens, data[i] == (byte)'\''
                ? "A string holds the escape \\'; JSON (RFC 8259) has no single-quote escape: write ' as itself."
                : "A string holds an escape JSON (RFC 8259) does not define; only \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX are.");
            _cutReason = Cut.Violation;
            return i;
        }

        // "\\", "\n", "\"", …: not the low half a pending high surrogate needs.
        if (_pendingHigh)
        {
            Unpaired();
        }

        _state = State.InString;
        i++;
        return -1;
    }

    // One hex digit of \uXXXX; the fourth completes the code unit, which the surrogate rule then checks.
    private int StepUnicode(ReadOnlySpan<byte> data, ref int i)
    {
        var digit = HexValue(data[i]);
        if (digit < 0)
        {
            // Not a valid escape; Newtonsoft rejects it. Re-read this byte as string content.
            if (_pendingHigh)
            {
                Unpaired();
            }

            _state = State.InString;
            return -1;
        }

        if (NameGrowsTooLong())
        {
            return i;
        }

        _hexValue = (_hexValue << 4) | digit;
        i++;
        if (++_hexCount == 4)
        {
            CompleteEscape(_hexValue);
            _state = State.InString;
        }

        return -1;
    }

    // Bounded member names: one more byte of a name past the limit ends the stream inside it.
    private bool NameGrowsTooLong()
    {
        if (_inName && ++_nameBytes > MaxMemberNameBytes)
        {
            _cutReason = Cut.MemberName;
            return true;
        }

        return false;
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

    // Commas: none before the first value of a container, none after another comma, none before the container's end.
    private void Separators(byte b)
    {
        var previous = _lastStructure;
        _lastStructure = b;
        if (b == (byte)',' && previous is (byte)'[' or (byte)'{' or (byte)',' or (byte)':' or (byte)'\0')
        {
            Violate(_tokens + 1, "A comma with no value before it; JSON (RFC 8259) has no empty elements.");
        }
        else if (b is (byte)']' or (byte)'}' && previous == (byte)',')
        {
            Violate(_tokens + 1, "A trailing comma; JSON (RFC 8259) allows none before ']' or '}'.");
        }

        if (b is (byte)'{' or (byte)'}' or (byte)'[' or (byte)']')
        {
            _tokens++;
        }
    }

    // One step of a small automaton over an unquoted token: true, false, null, or an RFC 8259 number
    // (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?). Anything else Newtonsoft would take (NaN, Infinity, undefined,
    // hex, octal, +1, unquoted names, NBSP or U+3000 as whitespace, single quotes, comments) is a violation.
    private void UnquotedByte(byte b)
    {
        if (_literal == Literal.Failed)
        {
            return;
        }

        var digit = b is >= (byte)'0' and <= (byte)'9';
        _literal = _literal switch
        {
            Literal.Start when b == (byte)'-' => Literal.Minus,
            Literal.Start or Literal.Minus when b == (byte)'0' => Literal.Zero,
            Literal.Start or Literal.Minus when digit => Literal.Integer,
            Literal.Integer when digit => Literal.Integer,
            Literal.Zero or Literal.Integer when b == (byte)'.' => Literal.Dot,
            Literal.Dot or Literal.Fraction when digit => Literal.Fraction,
            Literal.Zero or Literal.Integer or Literal.Fraction when b is (byte)'e' or (byte)'E' => Literal.Exponent,
            Literal.Exponent when b is (byte)'+' or (byte)'-' => Literal.ExponentSign,
            Literal.Exponent or Literal.ExponentSign or Literal.ExponentDigits when digit => Literal.ExponentDigits,
            Literal.Start when b is (byte)'t' or (byte)'f' or (byte)'n' => Word(b),
            Literal.True or Literal.False or Literal.Null when _literalAt < Words[(int)_literal - (int)Literal.True].Length &&
                                                               Words[(int)_literal - (int)Literal.True][_literalAt] == b => Advance(_literal),
            _ => Fail(b),
        };
    }

    private Literal Word(byte b)
    {
        _literalAt = 1;
        return b == (byte)'t' ? Literal.True : b == (byte)'f' ? Literal.False : Literal.Null;
    }

    private Literal Advance(Literal literal)
    {
        _literalAt++;
        return literal;
    }

    private Literal Fail(byte b)
    {
        Violate(_tokens, _literal == Literal.Start ? StartViolation(b) : UnquotedViolation);
        return Literal.Failed;
    }

    private void EndUnquoted()
    {
        if (_unquotedRun == 0)
        {
            return;
        }

        _unquotedRun = 0;
        var complete = _literal switch
        {
            Literal.Zero or Literal.Integer or Literal.Fraction or Literal.ExponentDigits or Literal.Failed => true,
            Literal.True or Literal.False or Literal.Null => _literalAt == Words[(int)_literal - (int)Literal.True].Length,
            _ => false,
        };
        if (!complete)
        {
            Violate(_tokens, UnquotedViolation);
        }
    }

    private static string StartViolation(byte b) => b switch
    {
        (byte)'\'' => "Single-quoted text is not JSON (RFC 8259); member names and strings are double-quoted.",
        (byte)'/' => "Comments are not allowed in JSON (RFC 8259).",
        >= 0x80 => "A non-ASCII character outside a string; JSON (RFC 8259) separates tokens only with space, tab, line feed and carriage return (not NBSP, U+3000 or other spaces).",
        < 0x20 or 0x7F => string.Create(
            CultureInfo.InvariantCulture,
            $"The control character U+{b:X4} outside a string; JSON (RFC 8259) separates tokens only with space, tab, line feed and carriage return."),
        _ => UnquotedViolation,
    };

    private void Violate(int token, string reason)
    {
        if (_firstViolationToken == 0)
        {
            _firstViolationToken = Math.Max(token, 1);
            _violation = reason;
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

    /// <summary>The input ended (no cut): what an unfinished token or a dangling high surrogate means.</summary>
    internal void EndOfInput()
    {
        EndUnquoted();
        if (_state != State.Outside)
        {
            // Newtonsoft reports the unterminated string itself.
            _state = State.Outside;
        }

        if (_pendingHigh)
        {
            Unpaired();
        }
    }

    private void Unpaired()
    {
        _pendingHigh = false;
        if (_firstUnpairedString == 0)
        {
            _firstUnpairedString = _strings;
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
