using System.Text;
using FunctionApp.Benchmarks.Seed;
using WidgetSigning.Envelopes;

namespace FunctionApp.Tests.TestKit;

/// <summary>Deterministic random envelopes whose strings exercise every escaping rule.</summary>
internal static class RandomEnvelopes
{
    // Quotes, backslashes, every control character, NEL/LS/PS, HTML-ish characters, non-ASCII BMP and astral characters.
    private static readonly string[] Pieces =
    [
        "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\u0000", "\u0001", "\u001f", "\u007f", "\u0085", "\u2028", "\u2029",
        "<", ">", "&", "'", "é", "ß", "漢字", "😀", "𝄞", "\ufeff", "\ufffd", "plain", " ", "0", "Property",
    ];

    public static (WidgetEnvelope Ours, SeedWidgetEnvelope Seed) Create(int seed, int widgets)
    {
        var random = new Random(seed);
        var ours = new List<Widget>(widgets);
        var theirs = new SeedWidgetEnvelope();
        for (var i = 0; i < widgets; i++)
        {
            var p = new string[10];
            for (var j = 0; j < p.Length; j++)
            {
                p[j] = RandomText(random);
            }

            var id = new Guid(Enumerable.Range(0, 16).Select(_ => (byte)random.Next(256)).ToArray());
            var created = new DateTime(random.NextInt64(DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks), DateTimeKind.Utc);
            if (random.Next(4) == 0)
            {
                created = new DateTime(created.Ticks - (created.Ticks % TimeSpan.TicksPerSecond), DateTimeKind.Utc);
            }

            ours.Add(new Widget
            {
                Id = id,
                Property0 = p[0], Property1 = p[1], Property2 = p[2], Property3 = p[3], Property4 = p[4],
                Property5 = p[5], Property6 = p[6], Property7 = p[7], Property8 = p[8], Property9 = p[9],
                CreatedUtc = created,
            });
            theirs.Widgets.Add(new SeedWidget
            {
                Id = id,
                Property0 = p[0], Property1 = p[1], Property2 = p[2], Property3 = p[3], Property4 = p[4],
                Property5 = p[5], Property6 = p[6], Property7 = p[7], Property8 = p[8], Property9 = p[9],
                CreatedUtc = created,
            });
        }

        return (new WidgetEnvelope(ours), theirs);
    }

    private static string RandomText(Random random)
    {
        var length = random.Next(0, 12);
        var text = new StringBuilder();
        for (var i = 0; i < length; i++)
        {
            text.Append(random.Next(3) == 0 ? (char)random.Next(0x20, 0x7f) : Pieces[random.Next(Pieces.Length)]);
        }

        return text.ToString();
    }
}
