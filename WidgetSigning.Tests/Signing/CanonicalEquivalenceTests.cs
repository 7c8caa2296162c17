using WidgetSigning.Envelopes;
using FunctionApp.Tests.TestKit;

namespace WidgetSigning.Tests.Signing;

/// <summary>Our member-by-member writer against Newtonsoft's reflection serializer, the definition in docs/signing-contract.md.</summary>
public sealed class CanonicalEquivalenceTests
{
    public static TheoryData<int> Seeds()
    {
        var data = new TheoryData<int>();
        for (var seed = 1; seed <= 200; seed++)
        {
            data.Add(seed);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void WriteCanonical_RandomEnvelope_IsByteIdenticalToNewtonsoft(int seed)
    {
        // Arrange
        var (ours, theirs) = RandomEnvelopes.Create(seed, widgets: 25);
        var expected = SeedShapes.SerializeWithNewtonsoft(theirs);

        // Act
        using var actual = new MemoryStream();
        CanonicalUtf8Writer.Write(ours, actual);

        // Assert
        Assert.Equal(expected, actual.ToArray());
    }

    [Theory]
    [InlineData(70_000, "a")]
    [InlineData(30_000, "漢")]
    [InlineData(20_000, "😀")]
    [InlineData(40_000, "\n\"\u2028")]
    [InlineData(16_383, "é")]
    public void WriteCanonical_StringsLongerThanTheWriteBuffer_AreByteIdenticalToNewtonsoft(int repeat, string piece)
    {
        // Arrange: one widget whose strings straddle the writer's 16 KB buffer in every way.
        var (ours, theirs) = RandomEnvelopes.Create(seed: repeat, widgets: 1);
        var text = string.Concat(Enumerable.Repeat(piece, repeat)) + "x";
        var widget = ours.Widgets[0];
        var big = new WidgetSigning.Envelopes.Widget
        {
            Id = widget.Id, CreatedUtc = widget.CreatedUtc,
            Property0 = text, Property1 = "b" + text, Property2 = widget.Property2, Property3 = widget.Property3,
            Property4 = widget.Property4, Property5 = widget.Property5, Property6 = widget.Property6,
            Property7 = widget.Property7, Property8 = widget.Property8, Property9 = "cc" + text,
        };
        theirs.Widgets[0].Property0 = big.Property0;
        theirs.Widgets[0].Property1 = big.Property1;
        theirs.Widgets[0].Property9 = big.Property9;

        // Act
        using var actual = new MemoryStream();
        CanonicalUtf8Writer.Write(new WidgetSigning.Envelopes.WidgetEnvelope([big]), actual);

        // Assert
        Assert.Equal(SeedShapes.SerializeWithNewtonsoft(theirs), actual.ToArray());
    }

    [Theory]
    [InlineData(DateTimeKind.Unspecified)]
    [InlineData(DateTimeKind.Local)]
    public void WriteCanonical_NonUtcKinds_FollowNewtonsoftsUtcHandling(DateTimeKind kind)
    {
        // Arrange: envelopes built in code may carry other kinds; the reader only ever makes UTC.
        var (ours, theirs) = RandomEnvelopes.Create(seed: 7, widgets: 3);
        var widgets = ours.Widgets.Select((w, i) =>
        {
            var created = DateTime.SpecifyKind(new DateTime(2024, 3, 31, 1, 30, 0).AddTicks(1234567 * (i + 1)), kind);
            theirs.Widgets[i].CreatedUtc = created;
            return new WidgetSigning.Envelopes.Widget
            {
                Id = w.Id, CreatedUtc = created,
                Property0 = w.Property0, Property1 = w.Property1, Property2 = w.Property2, Property3 = w.Property3, Property4 = w.Property4,
                Property5 = w.Property5, Property6 = w.Property6, Property7 = w.Property7, Property8 = w.Property8, Property9 = w.Property9,
            };
        }).ToList();

        // Act
        using var actual = new MemoryStream();
        CanonicalUtf8Writer.Write(new WidgetSigning.Envelopes.WidgetEnvelope(widgets), actual);

        // Assert
        Assert.Equal(SeedShapes.SerializeWithNewtonsoft(theirs), actual.ToArray());
    }

    [Fact]
    public void WriteCanonical_UnpairedSurrogate_IsRefusedNotReplaced()
    {
        // Arrange
        var (ours, _) = RandomEnvelopes.Create(seed: 3, widgets: 1);
        var w = ours.Widgets[0];
        var broken = new WidgetSigning.Envelopes.Widget
        {
            Id = w.Id, CreatedUtc = w.CreatedUtc,
            Property0 = "a\ud800b", Property1 = w.Property1, Property2 = w.Property2, Property3 = w.Property3, Property4 = w.Property4,
            Property5 = w.Property5, Property6 = w.Property6, Property7 = w.Property7, Property8 = w.Property8, Property9 = w.Property9,
        };

        // Act + Assert
        Assert.Throws<ArgumentException>(() => CanonicalUtf8Writer.Write(new WidgetSigning.Envelopes.WidgetEnvelope([broken]), Stream.Null));
    }
}
