using System.Text;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Envelopes;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Envelopes;

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
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => _reader.Read(new MemoryStream(input)));

        // Assert
        Assert.Equal(expected[0], error.Problem.JsonPath);
        Assert.Contains(expected[1], error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(InvalidCases))]
    public void ReadInto_InvalidEnvelope_SameErrorAsRead(string name)
    {
        // Arrange: reading into a sink and keeping nothing answers every bad body exactly as reading does.
        var input = File.ReadAllBytes(Path.Combine(InvalidRoot, name + ".json"));
        var expected = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => _reader.Read(new MemoryStream(input)));

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => _reader.ReadInto(new MemoryStream(input), new CountingSink()));

        // Assert
        Assert.Equal(expected.Problem.JsonPath, error.Problem.JsonPath);
        Assert.Equal(expected.Message, error.Message);
    }

    [Fact]
    public void ReadInto_SeedEnvelope_HandsOverEveryWidgetInOrderAndCountsThem()
    {
        // Arrange
        var vector = Vector.Load("seed-3000-widgets");
        var expected = _reader.Read(new MemoryStream(vector.Input)).Widgets;
        var sink = new CountingSink(keep: true);

        // Act
        var count = _reader.ReadInto(new MemoryStream(vector.Input), sink);

        // Assert
        Assert.Equal(expected.Count, count);
        Assert.Equal(expected.Select(w => (w.Id, w.Property9, w.CreatedUtc)), sink.Kept.Select(w => (w.Id, w.Property9, w.CreatedUtc)));
    }

    [Fact]
    public void ReadInto_LongEnvelope_KeepsNoWidgetTheSinkLetGo()
    {
        // Arrange: the sink keeps only weak references, and collects once 2,000 widgets are in.
        var vector = Vector.Load("seed-3000-widgets");
        var sink = new CountingSink(collectAt: 2000);

        // Act
        _reader.ReadInto(new MemoryStream(vector.Input), sink);

        // Assert: the reader itself held none of the first thousand (reading into a list, it held them all).
        Assert.Equal(0, sink.AliveOfFirstThousand);
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
        ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => _reader.Read(new MemoryStream(utf16)));
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
    [Fact]
    public void Read_MembersInAnyOrderAndSpelling_ReadsTheSameWidgets()
    {
        // Arrange: the reader predicts members in canonical order; reversed, PascalCase and shouted names must not take that path wrongly.
        const string Canonical = """
            {"widgets":[
            {"id":"d5ad6c6f-a71e-4cfd-885a-5df3d9c63f48","property0":"a0","property1":"a1","property2":"a2","property3":"a3","property4":"a4","property5":"a5","property6":"a6","property7":"a7","property8":"a8","property9":"a9","createdUtc":"2021-07-01T04:30:00Z"},
            {"id":"D5AD6C6F-A71E-4CFD-885A-5DF3D9C63F49","property0":"b0","property1":"b1","property2":"b2","property3":"b3","property4":"b4","property5":"b5","property6":"b6","property7":"b7","property8":"b8","property9":"b9","createdUtc":"2021-07-02T04:30:00Z"}]}
            """;
        const string Shuffled = """
            {"Widgets":[
            {"createdUtc":"2021-07-01T04:30:00Z","property9":"a9","property8":"a8","property7":"a7","property6":"a6","property5":"a5","property4":"a4","property3":"a3","property2":"a2","property1":"a1","property0":"a0","id":"{d5ad6c6f-a71e-4cfd-885a-5df3d9c63f48}"},
            {"Id":"d5ad6c6fa71e4cfd885a5df3d9c63f49","PROPERTY0":"b0","Property1":"b1","property2":"b2","property4":"b4","property3":"b3","property5":"b5","property6":"b6","property7":"b7","property8":"b8","property9":"b9","CreatedUtc":"2021-07-02T04:30:00Z"}]}
            """;

        // Act
        var expected = _reader.Read(new MemoryStream(Encoding.UTF8.GetBytes(Canonical))).Widgets;
        var actual = _reader.Read(new MemoryStream(Encoding.UTF8.GetBytes(Shuffled))).Widgets;

        // Assert
        Assert.Equal(2, actual.Count);
        for (var i = 0; i < expected.Count; i++)
        {
            Assert.Equivalent(expected[i], actual[i], strict: true);
        }
    }

    [Fact]
    public void Read_MemberRepeatedAfterCanonicalRun_IsRejectedAsDuplicate()
    {
        // Arrange: "id" again right where "property1" is predicted.
        var input = Encoding.UTF8.GetBytes("""{"widgets":[{"id":"d5ad6c6f-a71e-4cfd-885a-5df3d9c63f48","property0":"a","id":"d5ad6c6f-a71e-4cfd-885a-5df3d9c63f48"}]}""");

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => _reader.Read(new MemoryStream(input)));

        // Assert
        Assert.Contains("Duplicate member 'id'", error.Message, StringComparison.Ordinal);
        Assert.Equal("$.widgets[0].id", error.Problem.JsonPath);
    }

    [Fact]
    public void Read_BodyLongerThanItsWidgets_PresizesNoMoreThanTheLimitAllows()
    {
        // Arrange: a megabyte of trailing whitespace bounds the presized list at the widget limit, which the widgets then meet.
        var reader = new WidgetEnvelopeReader(new EnvelopeOptions { MaxWidgets = 1 });
        var one = Vector.Load("one-widget").Input;
        var input = one.Concat(Enumerable.Repeat((byte)' ', 1024 * 1024)).ToArray();

        // Act
        var envelope = reader.Read(new MemoryStream(input));

        // Assert
        Assert.Single(envelope.Widgets);
    }

    /// <summary>Counts widgets; keeps them (strongly) or weak references to the first thousand, and may collect once.</summary>
    private sealed class CountingSink(bool keep = false, int collectAt = -1) : IWidgetSink
    {
        private readonly List<WeakReference<Widget>> _first = [];
        private int _count;

        public List<Widget> Kept { get; } = [];

        public int AliveOfFirstThousand { get; private set; } = -1;

        public void Add(Widget widget)
        {
            if (keep)
            {
                Kept.Add(widget);
            }

            if (_count < 1000)
            {
                _first.Add(new WeakReference<Widget>(widget));
            }

            if (++_count == collectAt)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
                AliveOfFirstThousand = _first.Count(w => w.TryGetTarget(out _));
            }
        }
    }
}
