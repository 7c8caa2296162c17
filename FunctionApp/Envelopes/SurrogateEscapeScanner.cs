using System.Buffers;
using Microsoft.IO;

namespace FunctionApp.Envelopes;

/// <summary>
/// Finds <c>\uD800</c>-style escapes that do not form a surrogate pair. Newtonsoft's reader silently turns
/// them into U+FFFD, which would mean signing something other than what the client sent; this scan over
/// the raw bytes tells a real U+FFFD from a replaced one.
/// </summary>
internal static class SurrogateEscapeScanner
{
    /// <summary>
    /// True if the raw JSON in <paramref name="stream"/> has an unpaired surrogate escape, or if the stream's
    /// bytes cannot be inspected without copying (then the caller must assume the worst).
    /// </summary>
    public static bool MayHaveUnpairedSurrogateEscape(Stream stream) => stream switch
    {
        RecyclableMemoryStream pooled => HasUnpairedSurrogateEscape(pooled.GetReadOnlySequence()),
        MemoryStream memory when memory.TryGetBuffer(out var buffer) => HasUnpairedSurrogateEscape(new ReadOnlySequence<byte>(buffer)),
        _ => true,
    };

    public static bool HasUnpairedSurrogateEscape(ReadOnlySequence<byte> json)
    {
        var reader = new SequenceReader<byte>(json);
        Span<byte> hex = stackalloc byte[4];
        var expectLow = false;
        while (reader.TryAdvanceTo((byte)'\\'))
        {
            if (!reader.TryRead(out var escape))
            {
                break;
            }

            if (escape != (byte)'u' || !reader.TryCopyTo(hex))
            {
                // "\\", "\n", … – or a truncated escape, which the JSON reader reports itself.
                if (expectLow)
                {
                    return true;
                }

                continue;
            }

            reader.Advance(4);
            var code = ParseHex(hex);
            var isHigh = code is >= 0xD800 and <= 0xDBFF;
            var isLow = code is >= 0xDC00 and <= 0xDFFF;
            if (expectLow != isLow)
            {
                return true;
            }

            expectLow = false;
            if (isHigh)
            {
                // The low half must follow at once, as another escape.
                if (!reader.IsNext("\\u"u8))
                {
                    return true;
                }

                expectLow = true;
            }
        }

        return expectLow;
    }

    private static int ParseHex(ReadOnlySpan<byte> hex)
    {
        var value = 0;
        foreach (var b in hex)
        {
            var digit = b switch
            {
                >= (byte)'0' and <= (byte)'9' => b - '0',
                >= (byte)'a' and <= (byte)'f' => b - 'a' + 10,
                >= (byte)'A' and <= (byte)'F' => b - 'A' + 10,
                _ => -1,
            };
            if (digit < 0)
            {
                return -1;
            }

            value = (value << 4) | digit;
        }

        return value;
    }
}
