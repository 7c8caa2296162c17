using System.Globalization;
using System.Text;
using FunctionApp.Benchmarks.Seed;
using Newtonsoft.Json;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Seeded, reproducible hostile bodies: a valid random envelope (strings full of escapes, U+FFFD, astral characters),
/// then one to three mutations – byte flips, truncations, inserted quotes, backslashes and <c>\u</c> escapes (lone
/// surrogates included), duplicated, renamed or re-cased members, huge numbers, deep nesting, raw control characters,
/// reordered members. Plus the oracle: what Newtonsoft's own serializer makes of a body.
/// </summary>
public static class EnvelopeFuzzer
{
    /// <summary>The base seed; set FUZZ_SEED to reproduce or vary a run.</summary>
    public static int BaseSeed => int.TryParse(Environment.GetEnvironmentVariable("FUZZ_SEED"), NumberStyles.Integer, CultureInfo.InvariantCulture, out var seed) ? seed : 20261123;

    private static readonly string[] Members = ["id", "property0", "property1", "property5", "property9", "createdUtc", "widgets"];

    private static readonly JsonSerializerSettings ReadSettings = new()
    {
        DateTimeZoneHandling = DateTimeZoneHandling.Utc,
        MaxDepth = 64,
    };

    public static byte[] Create(int seed)
    {
        var random = new Random(seed);
        var (_, envelope) = RandomEnvelopes.Create(seed, widgets: random.Next(1, 4));
        var text = JsonConvert.SerializeObject(envelope, SeedShapes.CanonicalSettings);
        if (random.Next(3) == 0)
        {
            // Offsets and missing offsets, which the reader converts.
            text = text.Replace("Z\"", random.Next(2) == 0 ? "+14:00\"" : "\"", StringComparison.Ordinal);
        }

        // A quarter keep only changes a valid envelope may have (whitespace, case, order, escapes), so both outcomes are common.
        var mutations = random.Next(4) == 0 ? 0 : random.Next(1, 4);
        if (mutations == 0)
        {
            text = ValidChange(random, text);
        }

        for (var m = 0; m < mutations; m++)
        {
            text = MutateText(random, text);
        }

        var bytes = Encoding.UTF8.GetBytes(text);
        return mutations > 0 && random.Next(4) == 0 ? MutateBytes(random, bytes) : bytes;
    }

    /// <summary>Newtonsoft's canonical bytes for <paramref name="body"/>, or null when its serializer cannot read it.</summary>
    public static byte[]? NewtonsoftCanonical(byte[] body)
    {
        try
        {
            var text = new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(body).TrimStart('\ufeff');
            var envelope = JsonConvert.DeserializeObject<SeedWidgetEnvelope>(text, ReadSettings);
            return envelope is null ? null : SeedShapes.SerializeWithNewtonsoft(envelope);
        }
        catch (Exception ex) when (ex is JsonException or DecoderFallbackException or FormatException or OverflowException or ArgumentException)
        {
            return null;
        }
    }

    private static string MutateText(Random random, string text)
    {
        if (text.Length == 0)
        {
            return text;
        }

        var at = random.Next(text.Length);
        switch (random.Next(16))
        {
            case 0:
                return text[..at];
            case 1:
                return text.Insert(at, "\"");
            case 2:
                return text.Insert(at, "\\");
            case 3:
                // \u escapes, often surrogate halves, sometimes paired, sometimes broken.
                var code = random.Next(4) switch
                {
                    0 => random.Next(0xD800, 0xDC00),
                    1 => random.Next(0xDC00, 0xE000),
                    2 => 0xFFFD,
                    _ => random.Next(0x10000),
                };
                return text.Insert(at, "\\u" + code.ToString(random.Next(2) == 0 ? "x4" : "X4", CultureInfo.InvariantCulture));
            case 4:
                return text.Insert(at, "\\ud83d" + (random.Next(2) == 0 ? "\\ude00" : string.Empty));
            case 5:
                // Rename a member: another member, a different case (valid), or an unknown name.
                var member = Members[random.Next(Members.Length)];
                var renamed = random.Next(3) switch
                {
                    0 => member.ToUpperInvariant(),
                    1 => Members[random.Next(Members.Length)],
                    _ => member + "x",
                };
                return ReplaceOnce(text, $"\"{member}\"", $"\"{renamed}\"", random);
            case 6:
                // Duplicate a member.
                var duplicate = Members[random.Next(Members.Length - 1)];
                return ReplaceOnce(text, $"\"{duplicate}\":", $"\"{duplicate}\":\"x\",\"{duplicate}\":", random);
            case 7:
                // Huge numbers where a string belongs.
                var number = random.Next(3) switch
                {
                    0 => new string('9', random.Next(20, 400)),
                    1 => "1e" + new string('9', random.Next(3, 30)),
                    _ => "-0." + new string('1', random.Next(1, 200)),
                };
                return ReplaceOnce(text, "\"property1\":\"", "\"property1\":" + number + ",\"x\":\"", random);
            case 8:
                // Deep nesting.
                var depth = random.Next(1, 200);
                return text.Insert(at, new string('[', depth) + new string(']', random.Next(depth + 1)));
            case 9:
                return text.Insert(at, ((char)random.Next(0, 0x20)).ToString());
            case 10:
                return text.Insert(at, random.Next(2) == 0 ? "\ufffd" : "\ufeff");
            case 11:
                return text.Remove(at, Math.Min(random.Next(1, 8), text.Length - at));
            case 12:
                return text.Insert(at, random.Next(3) switch { 0 => " \t\r\n", 1 => "/* c */", _ => "," });
            case 13:
                // Reorder: move createdUtc to the front of its widget (valid).
                return ReplaceOnce(text, "{\"id\":", "{\"createdUtc\":\"2022-10-07T22:21:35.1234567-03:30\",\"id\":", random);
            case 14:
                return text.Insert(at, random.Next(3) switch { 0 => "null", 1 => "true", _ => "'single'" });
            default:
                return ReplaceOnce(text, "\"2", random.Next(2) == 0 ? "\"1" : "\"+2", random);
        }
    }

    private static string ValidChange(Random random, string text) => random.Next(5) switch
    {
        0 => Indented(text),
        1 => ReplaceOnce(text, "\"property5\"", "\"PROPERTY5\"", random),
        2 => ReplaceOnce(text, "{\"id\":", "{\"createdUtc\":\"2022-10-07T22:21:35.1234567-03:30\",\"id\":", random).Replace(",\"createdUtc\":\"2022-10-07T22:21:35.1234567-03:30\"", string.Empty, StringComparison.Ordinal),
        3 => ReplaceOnce(text, "\"property0\":\"", "\"property0\":\"\\ud83d\\ude00\\u00e9\\ufffd", random),
        _ => "\ufeff" + text,
    };

    // Whitespace between tokens only (RFC 8259's four), never inside a string: Newtonsoft re-writes the same tokens indented.
    private static string Indented(string text)
    {
        using var reader = new JsonTextReader(new StringReader(text)) { DateParseHandling = DateParseHandling.None };
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        using (var writer = new JsonTextWriter(output) { Formatting = Formatting.Indented, Indentation = 1, IndentChar = '\t' })
        {
            writer.WriteToken(reader);
        }

        return output.ToString();
    }

    /// <summary>True if <paramref name="body"/> is JSON as RFC 8259 defines it (System.Text.Json's defaults are exactly that).</summary>
    public static bool IsRfc8259Json(byte[] body)
    {
        try
        {
            var span = body.AsSpan();
            if (span.StartsWith((ReadOnlySpan<byte>)[0xEF, 0xBB, 0xBF]))
            {
                // RFC 8259 section 8.1: a parser may ignore a leading byte order mark.
                span = span[3..];
            }

            using var document = System.Text.Json.JsonDocument.Parse(span.ToArray());
            return true;
        }
        catch (System.Text.Json.JsonException)
        {
            return false;
        }
    }

    private static byte[] MutateBytes(Random random, byte[] bytes)
    {
        if (bytes.Length == 0)
        {
            return bytes;
        }

        var copy = (byte[])bytes.Clone();
        var flips = random.Next(1, 4);
        for (var i = 0; i < flips; i++)
        {
            var at = random.Next(copy.Length);
            copy[at] = random.Next(2) == 0 ? (byte)(copy[at] ^ (1 << random.Next(8))) : (byte)random.Next(256);
        }

        return copy;
    }

    private static string ReplaceOnce(string text, string find, string replacement, Random random)
    {
        var first = text.IndexOf(find, StringComparison.Ordinal);
        if (first < 0)
        {
            return text;
        }

        // Sometimes a later occurrence, so the second widget is hit too.
        var at = first;
        if (random.Next(2) == 0)
        {
            var later = text.IndexOf(find, first + find.Length, StringComparison.Ordinal);
            at = later >= 0 ? later : first;
        }

        return string.Concat(text.AsSpan(0, at), replacement, text.AsSpan(at + find.Length));
    }
}
