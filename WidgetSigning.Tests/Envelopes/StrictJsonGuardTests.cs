using System.Text;
using WidgetSigning.Envelopes;

namespace WidgetSigning.Tests.Envelopes;

public sealed class StrictJsonGuardTests
{
    [Theory]
    [InlineData(@"{""a"":""\ud83d\ude00""}", false)]
    [InlineData(@"{""a"":""\uD83D\uDE00 and \u00e9""}", false)]
    [InlineData(@"{""a"":""\\ud800""}", false)]
    [InlineData(@"{""a"":""\ufffd""}", false)]
    [InlineData(@"{""a"":""\ud800""}", true)]
    [InlineData(@"{""a"":""\ud800x""}", true)]
    [InlineData(@"{""a"":""\ude00""}", true)]
    [InlineData(@"{""a"":""\ud800\u0041""}", true)]
    [InlineData(@"{""a"":""\ud800\n""}", true)]
    public void HasUnpairedSurrogateEscape_RawJson_FindsOnlyLoneHalves(string json, bool expected)
    {
        // Act
        var found = StrictJsonGuard.HasUnpairedSurrogateEscape(Encoding.UTF8.GetBytes(json));

        // Assert
        Assert.Equal(expected, found);
    }

    [Theory]
    [InlineData(@"\ufffd")]
    [InlineData("\ufffd")]
    public void Read_RealReplacementCharacter_IsAccepted(string value)
    {
        // Arrange
        var json = $$"""{"widgets":[{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","property0":"{{value}}","property1":"b","property2":"c","property3":"d","property4":"e","property5":"f","property6":"g","property7":"h","property8":"i","property9":"j","createdUtc":"2022-10-07T22:21:35Z"}]}""";

        // Act
        var bytes = Encoding.UTF8.GetBytes(json);
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new MemoryStream(bytes, 0, bytes.Length, writable: false, publiclyVisible: true)).Widgets);

        // Assert
        Assert.Equal("\ufffd", widget.Property0);
    }
}
