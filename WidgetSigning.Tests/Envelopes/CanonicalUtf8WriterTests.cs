using FunctionApp.Tests.TestKit;
using WidgetSigning.Envelopes;
using WidgetSigning.Tests.Support;

namespace WidgetSigning.Tests.Envelopes;

/// <summary>
/// The writer fills whatever span its destination lends to the last byte (a pool block's rest), so every token
/// kind must come out identical when it is cut at any point.
/// </summary>
public sealed class CanonicalUtf8WriterTests
{
    public static TheoryData<int> Seeds()
    {
        var data = new TheoryData<int>();
        for (var seed = 1; seed <= 40; seed++)
        {
            data.Add(seed);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void Write_TinySpans_IsByteIdenticalToNewtonsoft(int seed)
    {
        // Arrange: spans of 1 to 7 bytes, so GUIDs (36), dates (up to 28), \uXXXX escapes (6) and 4-byte characters all straddle.
        var (ours, theirs) = RandomEnvelopes.Create(seed, widgets: 10);
        var destination = new ChunkedBufferWriter(1, 2, 3, 5, 7, 4, 6);

        // Act
        CanonicalUtf8Writer.Write(ours, destination);

        // Assert
        Assert.Equal(SeedShapes.SerializeWithNewtonsoft(theirs), destination.ToArray());
    }

    [Theory]
    [InlineData("\"")]
    [InlineData("\\")]
    [InlineData("\n")]
    [InlineData("\u001f")]
    [InlineData("\u007f")]
    [InlineData("\u0085")]
    [InlineData("\u2028")]
    [InlineData("é")]
    [InlineData("😀")]
    [InlineData("~")]
    [InlineData(" ")]
    public void Write_OneSpecialCharacterAtEveryPosition_IsByteIdenticalToNewtonsoft(string special)
    {
        // Arrange: ASCII strings of 0 to 40 chars with the character at each position, so it falls in every lane of
        // the 8-char blocks the plain-ASCII path checks, including the overlapping last block.
        var (ours, theirs) = RandomEnvelopes.Create(seed: 1, widgets: 1);
        var texts = new List<string>();
        for (var length = 0; length <= 40; length++)
        {
            var plain = new string('a', length);
            texts.Add(plain);
            for (var at = 0; at <= length; at++)
            {
                texts.Add(plain.Insert(at, special));
            }
        }

        var w = ours.Widgets[0];
        var widgets = texts.Select(t => new WidgetSigning.Envelopes.Widget
        {
            Id = w.Id, CreatedUtc = w.CreatedUtc,
            Property0 = t, Property1 = w.Property1, Property2 = w.Property2, Property3 = w.Property3, Property4 = w.Property4,
            Property5 = w.Property5, Property6 = w.Property6, Property7 = w.Property7, Property8 = w.Property8, Property9 = t,
        }).ToList();
        var seed = new FunctionApp.Benchmarks.Seed.SeedWidgetEnvelope();
        foreach (var widget in widgets)
        {
            var copy = theirs.Widgets[0];
            seed.Widgets.Add(new FunctionApp.Benchmarks.Seed.SeedWidget
            {
                Id = copy.Id, CreatedUtc = copy.CreatedUtc,
                Property0 = widget.Property0, Property1 = copy.Property1, Property2 = copy.Property2, Property3 = copy.Property3, Property4 = copy.Property4,
                Property5 = copy.Property5, Property6 = copy.Property6, Property7 = copy.Property7, Property8 = copy.Property8, Property9 = widget.Property9,
            });
        }

        // Act
        using var staged = new MemoryStream();
        CanonicalUtf8Writer.Write(new WidgetSigning.Envelopes.WidgetEnvelope(widgets), staged);
        var chunked = new ChunkedBufferWriter(7, 3, 64, 1, 29);
        CanonicalUtf8Writer.Write(new WidgetSigning.Envelopes.WidgetEnvelope(widgets), chunked);

        // Assert
        var expected = SeedShapes.SerializeWithNewtonsoft(seed);
        Assert.Equal(expected, staged.ToArray());
        Assert.Equal(expected, chunked.ToArray());
    }

    [Fact]
    public void Write_TinySpans_CommitsEachSpanFullExceptTheLast()
    {
        // Arrange
        var (ours, _) = RandomEnvelopes.Create(seed: 11, widgets: 5);
        var destination = new ChunkedBufferWriter(3);

        // Act
        CanonicalUtf8Writer.Write(ours, destination);

        // Assert: a block is hashed and left behind only when it is full.
        var length = destination.ToArray().Length;
        Assert.Equal((length + 2) / 3, destination.Commits);
    }

    [Theory]
    [InlineData(70_000, "a")]
    [InlineData(30_000, "漢")]
    [InlineData(20_000, "😀")]
    [InlineData(40_000, "\n\"\u2028")]
    public void Sign_StringsLongerThanABlock_SignsNewtonsoftsBytes(int repeat, string piece)
    {
        // Arrange: one widget whose strings straddle the pool's 64 KB blocks in every way.
        var services = new TestServices();
        var (ours, theirs) = RandomEnvelopes.Create(seed: repeat, widgets: 1);
        var text = string.Concat(Enumerable.Repeat(piece, repeat)) + "x";
        var w = ours.Widgets[0];
        var big = new WidgetSigning.Envelopes.Widget
        {
            Id = w.Id, CreatedUtc = w.CreatedUtc,
            Property0 = text, Property1 = "b" + text, Property2 = w.Property2, Property3 = w.Property3, Property4 = w.Property4,
            Property5 = w.Property5, Property6 = w.Property6, Property7 = w.Property7, Property8 = w.Property8, Property9 = "cc" + text,
        };
        theirs.Widgets[0].Property0 = big.Property0;
        theirs.Widgets[0].Property1 = big.Property1;
        theirs.Widgets[0].Property9 = big.Property9;
        var expected = SeedShapes.SerializeWithNewtonsoft(theirs);

        // Act
        using var signed = services.Signer.SignWith(new WidgetSigning.Envelopes.WidgetEnvelope([big]));
        using var canonical = new MemoryStream();
        signed.CopyCanonicalTo(canonical);

        // Assert
        Assert.Equal(expected, canonical.ToArray());
        Assert.Equal(Convert.ToHexString(System.Security.Cryptography.HMACSHA256.HashData(Vector.Key, expected)).ToLowerInvariant(), signed.Signature.ToHex());
    }
}
