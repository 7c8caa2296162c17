using System.Text;
using FunctionApp.Envelopes;
using FunctionApp.Tests.Infrastructure;

namespace FunctionApp.Tests.Envelopes;

public sealed class WidgetEnvelopeReaderTests
{
    private static readonly string InvalidRoot = Path.Combine(AppContext.BaseDirectory, "TestData", "invalid-envelopes");

    private readonly WidgetEnvelopeReader _reader = new();

    /// <summary>Every TestData/invalid-envelopes/NAME.json, with NAME.expected holding the JSON path and a fragment of the message.</summary>
    public static TheoryData<string> InvalidCases()
    {
        var data = new TheoryData<string>();
        foreach (var file in Directory.GetFiles(InvalidRoot, "*.json").OrderBy(f => f, StringComparer.Ordinal))
        {
            data.Add(Path.GetFileNameWithoutExtension(file));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(InvalidCases))]
    public void Read_InvalidEnvelope_ThrowsNamingPathAndProblem(string name)
    {
        // Arrange
        var input = File.ReadAllBytes(Path.Combine(InvalidRoot, name + ".json"));
        var expected = File.ReadAllLines(Path.Combine(InvalidRoot, name + ".expected"));

        // Act
        var error = Assert.Throws<EnvelopeFormatException>(() => _reader.Read(new MemoryStream(input)));

        // Assert
        Assert.Equal(expected[0], error.JsonPath);
        Assert.Contains(expected[1], error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void InvalidCases_FolderHasCases_AtLeastTwenty()
    {
        Assert.True(InvalidCases().Count >= 20);
    }

    [Fact]
    public void Read_Utf8Bom_IsAccepted()
    {
        // Arrange
        var vector = Vector.Load("one-widget");
        var withBom = new byte[] { 0xEF, 0xBB, 0xBF }.Concat(vector.Input).ToArray();

        // Act
        var envelope = _reader.Read(new MemoryStream(withBom));

        // Assert
        Assert.Single(envelope.Widgets);
    }

    [Fact]
    public void Read_Utf16Body_IsRejected()
    {
        // Arrange
        var utf16 = Encoding.Unicode.GetBytes("{\"widgets\":[]}");

        // Act + Assert
        Assert.Throws<EnvelopeFormatException>(() => _reader.Read(new MemoryStream(utf16)));
    }

    [Fact]
    public void Read_ValidEnvelope_KeepsOrderAndValues()
    {
        // Arrange
        var input = Vector.Load("offset-time-to-utc").Input;

        // Act
        var widget = Assert.Single(_reader.Read(new MemoryStream(input)).Widgets);

        // Assert
        Assert.Equal(Guid.Parse("d5ad6c6f-a71e-4cfd-885a-5df3d9c63f48"), widget.Id);
        Assert.Equal("XeqR3AoVnIQbtEQcKB1oi76s", widget.Property0);
        Assert.Equal("9tHoVwdMIONcuDrgBDBIzKXc", widget.Property9);
        Assert.Equal(new DateTime(2021, 7, 1, 4, 30, 0, DateTimeKind.Utc), widget.CreatedUtc);
        Assert.Equal(DateTimeKind.Utc, widget.CreatedUtc.Kind);
    }
}
