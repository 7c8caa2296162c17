using System.Text;
using WidgetSigning.Envelopes;
using WidgetSigning.Tests.Support;
using WidgetSigning.Primitives;
using FunctionApp.Tests.TestKit;

namespace WidgetSigning.Tests.Envelopes;

/// <summary>Attacks on the reader, which HTTP and the queue share: each test is named for the attack it repels.</summary>
public sealed class WidgetEnvelopeReaderAttackTests
{
    private const string Id = "6f9619ff-8b86-d011-b42d-00c04fc964ff";

    public static TheoryData<string> ReplacementCharacters() => new() { "\ufffd", @"\ufffd", @"\uFFFD", "a\ufffdb\ufffd" };

    [Theory]
    [MemberData(nameof(ReplacementCharacters))]
    public void Read_RealReplacementCharacterInNonExposableMemoryStream_IsAccepted(string value)
    {
        // Arrange: what the queue path hands the reader – a MemoryStream whose buffer is not publicly visible.
        var bytes = Envelope(value);

        // Act
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new MemoryStream(bytes, writable: false)).Widgets);

        // Assert
        Assert.Equal(value.Replace(@"\ufffd", "\ufffd", StringComparison.Ordinal).Replace(@"\uFFFD", "\ufffd", StringComparison.Ordinal), widget.Property0);
    }

    [Theory]
    [MemberData(nameof(ReplacementCharacters))]
    public void Read_RealReplacementCharacterInPlainNonSeekableStream_IsAccepted(string value)
    {
        // Act
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new TrickleStream(Envelope(value), chunk: 3)).Widgets);

        // Assert
        Assert.Contains("\ufffd", widget.Property0, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(@"\ud800", 1)]
    [InlineData(@"\udc00", 1)]
    [InlineData(@"x\ud83d\n", 7)]
    [InlineData(@"\ud83d\ud83d\ude00", 1)]
    [InlineData(@"\ufffd\ud800", 64)]
    public void Read_UnpairedSurrogateEscapeSplitAcrossReads_IsRejectedAtItsPath(string value, int chunk)
    {
        // Arrange: every byte boundary of the escape can fall between two reads.
        var bytes = Envelope(value, property1: value);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new TrickleStream(bytes, chunk)));

        // Assert: the first string holding one is named, though U+FFFD appears in both.
        Assert.Equal("$.widgets[0].property0", error.Problem.JsonPath);
        Assert.Contains("unpaired", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(5)]
    public void Read_SurrogatePairEscapeSplitAcrossReads_IsAccepted(int chunk)
    {
        // Act
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new TrickleStream(Envelope(@"\ud83d\ude00 \uD834\uDD1E"), chunk)).Widgets);

        // Assert
        Assert.Equal("😀 𝄞", widget.Property0);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Read_HugeUnknownMemberNameAttack_EchoIsBounded(bool atRoot)
    {
        // Arrange: a 20,000-character name would otherwise be copied into the problem, the log line and a rejected message.
        var name = new string('n', 20_000);
        var json = atRoot
            ? $$"""{"{{name}}":1,"widgets":[]}"""
            : Encoding.UTF8.GetString(Envelope("a")).Replace("\"createdUtc\"", $"\"{name}\":\"x\",\"createdUtc\"", StringComparison.Ordinal);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert: the input ends 64 bytes into the name, so it is neither decoded in full nor echoed at all.
        Assert.Contains("member name is longer than 64 bytes", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("nnnnnnnnnn", error.Message, StringComparison.Ordinal);
        Assert.Equal(atRoot ? "$" : "$.widgets[0]", error.Problem.JsonPath);
    }

    [Fact]
    public void Read_EchoLimitSetting_BoundsEchoedName()
    {
        // Arrange
        var reader = new WidgetEnvelopeReader(new EnvelopeOptions { MaxEchoedChars = 10 });
        var json = $$"""{"{{new string('q', 60)}}":1}""";

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => reader.Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert
        Assert.Contains("'qqqqqqqqqq…(+50 chars)'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_KnownMemberNamesFullyEscaped_AreNotCutByTheNameLimit()
    {
        // Arrange: "createdUtc" and "property0" written entirely as \u escapes (60 and 54 bytes) are still valid names.
        static string Escape(string name) => string.Concat(name.Select(c => $"\\u{(int)c:x4}"));
        var json = Encoding.UTF8.GetString(Envelope("a"))
            .Replace("\"createdUtc\"", $"\"{Escape("createdUtc")}\"", StringComparison.Ordinal)
            .Replace("\"property0\"", $"\"{Escape("property0")}\"", StringComparison.Ordinal);

        // Act
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new TrickleStream(Encoding.UTF8.GetBytes(json), chunk: 7)).Widgets);

        // Assert
        Assert.Equal("a", widget.Property0);
    }

    [Theory]
    [InlineData(65)]
    [InlineData(1_000_000)]
    public void Read_LongMemberNameAttack_IsCutAfter64Bytes(int length)
    {
        // Arrange: a long string in a member-name position, even one a client might think is "almost" a name.
        var json = Encoding.UTF8.GetString(Envelope("a")).Replace("\"property3\"", $"\"property3{new string('x', length)}\"", StringComparison.Ordinal);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert: the path is the widget that holds it.
        Assert.Equal("$.widgets[0]", error.Problem.JsonPath);
        Assert.Contains("longer than 64 bytes", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_LongStringValues_AreNotCutByTheNameLimit()
    {
        // Act: strings in value positions (objects and arrays alike) have no length limit of their own.
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new TrickleStream(Envelope(new string('v', 100_000)), chunk: 5_000)).Widgets);

        // Assert
        Assert.Equal(100_000, widget.Property0.Length);
    }

    [Fact]
    public void Read_MoreWidgetsThanTheLimitAttack_IsRejectedAtTheFirstExtraWidgetNamingTheSetting()
    {
        // Arrange
        var reader = new WidgetEnvelopeReader(new EnvelopeOptions { MaxWidgets = 3 });
        var widget = Encoding.UTF8.GetString(Envelope("a"))["{\"widgets\":[".Length..^2];
        var three = Encoding.UTF8.GetBytes("{\"widgets\":[" + string.Join(",", Enumerable.Repeat(widget, 3)) + "]}");
        var four = Encoding.UTF8.GetBytes("{\"widgets\":[" + string.Join(",", Enumerable.Repeat(widget, 4)) + "]}");

        // Act
        var accepted = reader.Read(new MemoryStream(three));
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => reader.Read(new MemoryStream(four)));

        // Assert
        Assert.Equal(3, accepted.Widgets.Count);
        Assert.Equal("$.widgets[3]", error.Problem.JsonPath);
        Assert.Contains("Envelopes:MaxWidgets", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("1")]
    [InlineData("-1.5e300")]
    [InlineData("true")]
    public void Read_ShortUnquotedValue_IsRejectedAsNotAString(string token)
    {
        // Arrange
        var json = Encoding.UTF8.GetString(Envelope("a")).Replace($"\"{Id}\"", token, StringComparison.Ordinal);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert
        Assert.Equal("$.widgets[0].id", error.Problem.JsonPath);
        Assert.Contains("must be a JSON string", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("9", 100_000)]
    [InlineData("1", 65)]
    [InlineData("-", 1)]
    public void Read_HugeNumberAttack_IsCutBeforeNewtonsoftParsesIt(string digit, int count)
    {
        // Arrange: Newtonsoft would parse a long integer as a BigInteger, in time quadratic in its length.
        var number = digit == "-" ? "-" + new string('1', 200) : new string(digit[0], count);
        var json = Encoding.UTF8.GetString(Envelope("a")).Replace($"\"{Id}\"", number, StringComparison.Ordinal);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert
        Assert.Equal("$.widgets[0].id", error.Problem.JsonPath);
        Assert.Contains("longer than 64 bytes", error.Message, StringComparison.Ordinal);
        Assert.True(error.Message.Length < 400);
    }

    [Fact]
    public void Read_LongInvalidTokenInNewtonsoftMessage_IsBounded()
    {
        // Arrange: an unquoted member name is echoed by Newtonsoft's own message; a long one must not be.
        var json = "{" + new string('k', 5000) + "}";

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert
        Assert.True(error.Message.Length < 400, error.Message);
        Assert.True(error.Problem.JsonPath!.Length < 140, error.Problem.JsonPath);
    }

    public static TheoryData<string, int> NonRfc8259Cases()
    {
        var data = new TheoryData<string, int>();
        var root = Path.Combine(AppContext.BaseDirectory, "TestData", "invalid-envelopes");
        foreach (var file in Directory.GetFiles(root, "rfc8259-*.json").OrderBy(f => f, StringComparer.Ordinal))
        {
            data.Add(Path.GetFileNameWithoutExtension(file), 1);
            data.Add(Path.GetFileNameWithoutExtension(file), 7);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(NonRfc8259Cases))]
    public void Read_NonRfc8259JsonAttackSplitAcrossReads_RejectedAtTheSamePath(string name, int chunk)
    {
        // Arrange: what Newtonsoft accepts and RFC 8259 does not, arriving a few bytes per read.
        var root = Path.Combine(AppContext.BaseDirectory, "TestData", "invalid-envelopes");
        var input = File.ReadAllBytes(Path.Combine(root, name + ".json"));
        var expected = File.ReadAllLines(Path.Combine(root, name + ".expected"));

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new TrickleStream(input, chunk)));

        // Assert
        Assert.Equal(expected[0], error.Problem.JsonPath);
        Assert.Contains(expected[1], error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_RawControlCharacterStringAttack_StreamEndsAtTheFirstOne()
    {
        // Arrange: 16 MiB of raw U+0001 (a 96 MiB canonical form if it were accepted).
        var body = Envelope(new string('\u0001', 16 * 1024 * 1024));
        using var stream = new MemoryStream(body, writable: false);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(stream));

        // Assert: refused at its path after reading a few kilobytes, never decoded into a 32 MB string.
        Assert.Equal("$.widgets[0].property0", error.Problem.JsonPath);
        Assert.Contains("raw control character (U+0001)", error.Message, StringComparison.Ordinal);
        Assert.True(stream.Position < 64 * 1024, $"read {stream.Position:N0} bytes");
    }

    [Theory]
    [InlineData(" 6f9619ff-8b86-d011-b42d-00c04fc964ff")]
    [InlineData("6f9619ff-8b86-d011-b42d-00c04fc964ff\t")]
    [InlineData("6f9619ff8b86d011b42d00c04fc964f ")]
    [InlineData("{6f9619ff-8b86-d011-b42d-00c04fc964ff")]
    [InlineData("(6f9619ff-8b86-d011-b42d-00c04fc964ff}")]
    [InlineData("{0x6f9619ff,0x8b86,0xd011,{0xb4,0x2d,0x00,0xc0,0x4f,0xc9,0x64,0xff}}")]
    [InlineData("+f9619ff-8b86-d011-b42d-00c04fc964ff")]
    [InlineData("6f9619ff-8b86-d011-b42d-00c04fc964ff\u0000")]
    public void Read_PaddedOrOtherFormGuidAttack_IsRejected(string id)
    {
        // Arrange
        var json = Encoding.UTF8.GetString(Envelope("a")).Replace(Id, id, StringComparison.Ordinal);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))));

        // Assert
        Assert.Equal("$.widgets[0].id", error.Problem.JsonPath);
    }

    [Theory]
    [InlineData("6f9619ff-8b86-d011-b42d-00c04fc964ff")]
    [InlineData("6F9619FF-8B86-D011-B42D-00C04FC964FF")]
    [InlineData("6f9619ff8b86d011b42d00c04fc964ff")]
    [InlineData("{6f9619ff-8b86-d011-b42d-00c04fc964ff}")]
    [InlineData("(6f9619ff-8b86-d011-b42d-00c04fc964ff)")]
    public void Read_GuidInFormDNBOrP_IsAcceptedAsTheSameId(string id)
    {
        // Arrange
        var json = Encoding.UTF8.GetString(Envelope("a")).Replace(Id, id, StringComparison.Ordinal);

        // Act
        var widget = Assert.Single(new WidgetEnvelopeReader().Read(new MemoryStream(Encoding.UTF8.GetBytes(json))).Widgets);

        // Assert
        Assert.Equal(Guid.Parse(Id), widget.Id);
    }

    private static byte[] Envelope(string property0, string property1 = "b") => Encoding.UTF8.GetBytes(
        $$"""{"widgets":[{"id":"{{Id}}","property0":"{{property0}}","property1":"{{property1}}","property2":"c","property3":"d","property4":"e","property5":"f","property6":"g","property7":"h","property8":"i","property9":"j","createdUtc":"2022-10-07T22:21:35Z"}]}""");
}
