using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Primitives;

/// <summary>
/// <see cref="EchoText"/>: client text echoed into logs, problem details and rejected messages has no character a
/// terminal or a bidi renderer acts on, and stays bounded.
/// </summary>
public sealed class EchoTextTests
{
    public static TheoryData<string, string> Escaped => new()
    {
        { "x\u001b[31mRED", "x\\u001B[31mRED" },
        { "a\r\nb\tc\0", "a\\u000D\\u000Ab\\u0009c\\u0000" },
        { "del\u007f c1\u0085\u009b", "del\\u007F c1\\u0085\\u009B" },
        { "abc\u202Egnp.exe", "abc\\u202Egnp.exe" },
        { "\u202A\u202B\u202C\u202D", "\\u202A\\u202B\\u202C\\u202D" },
        { "\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069" },
        { "\u200E\u200F\u061C", "\\u200E\\u200F\\u061C" },
        { "line\u2028para\u2029", "line\\u2028para\\u2029" },
        { "lone\uD800high", "lone\\uD800high" },
        { "lone\uDC00low", "lone\\uDC00low" },
        { "end\uD83D", "end\\uD83D" },
    };

    [Theory]
    [MemberData(nameof(Escaped), DisableDiscoveryEnumeration = true)]
    public void Of_ControlBidiOrLoneSurrogateAttack_EscapedAsBackslashU(string value, string expected)
    {
        // Act
        var echoed = EchoText.Of(value, 200);

        // Assert
        Assert.Equal(expected, echoed);
        Assert.False(EchoText.NeedsEscape(echoed));
    }

    [Theory]
    [InlineData("widgets")]
    [InlineData("naïve – ünïcode")]
    [InlineData("astral \U0001F600 pair")]
    [InlineData("back\\slash 'quote'")]
    public void Of_OrdinaryText_Unchanged(string value) => Assert.Same(value, EchoText.Of(value, 200));

    [Fact]
    public void Of_LongRunOfControlsAttack_BoundedAndMarksWhatWasLeftOut()
    {
        // Arrange: 100,000 ESCs, each six characters escaped.
        var value = new string('\u001b', 100_000);

        // Act
        var echoed = EchoText.Of(value);

        // Assert: ten escapes (60 of the 64 characters), never half of one, then the marker.
        Assert.Equal(string.Concat(Enumerable.Repeat("\\u001B", 10)) + "…(+99,990 chars)", echoed);
    }

    [Fact]
    public void Of_SurrogatePairAtTheBound_NotSplit()
    {
        // Arrange: 63 letters, then a pair across the 64th character.
        var value = new string('a', 63) + "\U0001F600" + "tail";

        // Act
        var echoed = EchoText.Of(value);

        // Assert
        Assert.Equal(new string('a', 63) + "…(+6 chars)", echoed);
    }

    [Fact]
    public void Of_WithinTheBound_KeptWhole() => Assert.Equal(new string('a', 64), EchoText.Of(new string('a', 64)));
}
