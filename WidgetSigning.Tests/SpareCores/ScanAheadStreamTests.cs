using System.Text;
using FunctionApp.Tests.TestKit;
using Microsoft.IO;
using WidgetSigning.Envelopes;
using WidgetSigning.SpareCores;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.SpareCores;

/// <summary>
/// The byte scan run ahead on a spare core answers exactly as the scan on the reader's thread: after every
/// read, the same bytes passed on and the same findings, whether the helper scanned everything first, raced the reader,
/// or never started; so every error answer of the reader stays the same.
/// </summary>
public sealed class ScanAheadStreamTests
{
    private static readonly string InvalidRoot = Path.Combine(AppContext.BaseDirectory, "TestData", "invalid-envelopes");

    public enum Ahead
    {
        /// <summary>The helper scanned the whole body before the first read.</summary>
        AllFirst,

        /// <summary>The helper runs on the thread pool while the reader reads.</summary>
        Racing,

        /// <summary>No helper: the reader's thread scans each chunk as it needs it.</summary>
        Never,
    }

    /// <summary>Every invalid-envelope case, each way.</summary>
    public static TheoryData<string, Ahead> InvalidCasesEveryWay()
    {
        var data = new TheoryData<string, Ahead>();
        foreach (var file in Directory.GetFiles(InvalidRoot, "*.json").OrderBy(f => f, StringComparer.Ordinal))
        {
            foreach (var ahead in Enum.GetValues<Ahead>())
            {
                data.Add(Path.GetFileNameWithoutExtension(file), ahead);
            }
        }

        return data;
    }

    /// <summary>A violation of each kind planted in the seed body at offsets around the 4 KB reads and the 16 KB scan chunks, each way.</summary>
    public static TheoryData<string, int, Ahead> PlantedEveryWay()
    {
        var data = new TheoryData<string, int, Ahead>();
        foreach (var kind in Planted.Keys)
        {
            foreach (var near in new[] { 4096, 16_384, 3 * 16_384, 200_000 })
            {
                foreach (var delta in new[] { -3, 0, 2 })
                {
                    data.Add(kind, near + delta, Ahead.AllFirst);
                    data.Add(kind, near + delta, Ahead.Never);
                }
            }

            data.Add(kind, 500_000, Ahead.Racing);
        }

        return data;
    }

    // What a client can put into a string value (the planted bytes replace a value's first characters).
    private static readonly Dictionary<string, string> Planted = new()
    {
        ["unpaired-surrogate"] = @"\ud800x",
        ["control-character"] = "a\u0001b",
        ["undefined-escape"] = @"\q",
        ["single-quote-escape"] = @"\'",
        ["closing-quote-then-number"] = "\", 123456789012345678901234567890123456789012345678901234567890123456789012345, \"",
        ["closing-quote-then-long-name"] = "\", \"" + new string('n', 200) + "\": \"",
        ["closing-quote-then-bare-word"] = "\", nope, \"",
    };

    [Theory]
    [MemberData(nameof(InvalidCasesEveryWay))]
    public void Read_InvalidEnvelope_SameAnswersAfterEveryReadAsTheScanner(string name, Ahead ahead)
    {
        // Arrange
        var body = File.ReadAllBytes(Path.Combine(InvalidRoot, name + ".json"));

        // Act and Assert
        AssertSameAsScanner(body, ahead, blockSize: 1024, seed: name.Length);
    }

    [Theory]
    [MemberData(nameof(PlantedEveryWay))]
    public void Read_PlantedViolationAttack_SameAnswersAfterEveryReadAsTheScanner(string kind, int offset, Ahead ahead)
    {
        // Arrange (attack): the seed body with a violation planted in the string value that holds the offset.
        var body = Plant(Vector.Load("seed-3000-widgets").Input, offset, Planted[kind]);

        // Act and Assert: reads of varied sizes over pooled blocks of 100 KB (the body spans segments).
        AssertSameAsScanner(body, ahead, blockSize: 100 * 1024, seed: offset);
    }

    [Theory]
    [InlineData(Ahead.AllFirst)]
    [InlineData(Ahead.Racing)]
    [InlineData(Ahead.Never)]
    public void Read_ValidSeedBody_PassesEveryByteAndFindsNothing(Ahead ahead)
    {
        // Arrange
        var body = Vector.Load("seed-3000-widgets").Input;

        // Act and Assert
        AssertSameAsScanner(body, ahead, blockSize: 128 * 1024, seed: 1);
    }

    [Theory]
    [MemberData(nameof(Envelopes.WidgetEnvelopeReaderTests.InvalidCases), MemberType = typeof(Envelopes.WidgetEnvelopeReaderTests))]
    public void ReadInto_ScanAheadOnInvalidEnvelope_SameErrorAsRead(string name)
    {
        // Arrange: the reader as production runs it with a core spare, over a pooled body.
        var input = File.ReadAllBytes(Path.Combine(InvalidRoot, name + ".json"));
        var reader = new WidgetEnvelopeReader();
        var expected = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => reader.Read(new MemoryStream(input)));
        using var pooled = Pooled(input, blockSize: 1024);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => ScanAheadStream.ReadInto(reader, pooled, new NullSink(), TestServices.SpareCores().Counters));

        // Assert
        Assert.Equal(expected.Problem.JsonPath, error.Problem.JsonPath);
        Assert.Equal(expected.Message, error.Message);
    }

    private static void AssertSameAsScanner(byte[] body, Ahead ahead, int blockSize, int seed)
    {
        using var plain = new MemoryStream(body, writable: false);
        using var pooled = Pooled(body, blockSize);
        using var scanner = new StrictJsonGuard(plain);
        using var scanAhead = new ScanAheadStream(pooled, pooled.GetReadOnlySequence(), TestServices.SpareCores().Counters);
        switch (ahead)
        {
            case Ahead.AllFirst:
                scanAhead.Execute();
                break;
            case Ahead.Racing:
                scanAhead.Start();
                break;
        }

        var random = new Random(seed);
        var one = new byte[8192];
        var other = new byte[8192];
        for (var read = 0; read < 10_000; read++)
        {
            var size = read % 3 == 0 ? 4096 : random.Next(1, 8193);
            var expected = scanner.Read(one.AsSpan(0, size));
            var actual = scanAhead.Read(other.AsSpan(0, size));
            Assert.True(expected == actual, $"read {read}: {actual} bytes passed on, the scanner {expected}");
            Assert.True(one.AsSpan(0, expected).SequenceEqual(other.AsSpan(0, actual)), $"read {read}: different bytes");
            Assert.Equal(scanner.FirstViolationToken, scanAhead.FirstViolationToken);
            Assert.Equal(scanner.Violation, scanAhead.Violation);
            Assert.Equal(scanner.FirstUnpairedString, scanAhead.FirstUnpairedString);
            Assert.Equal(scanner.CutReason, scanAhead.CutReason);
            if (expected == 0)
            {
                return;
            }
        }

        Assert.Fail("the body was not read to its end");
    }

    private static RecyclableMemoryStream Pooled(byte[] body, int blockSize)
    {
        var manager = new RecyclableMemoryStreamManager(new RecyclableMemoryStreamManager.Options { BlockSize = blockSize, LargeBufferMultiple = blockSize, MaximumBufferSize = 16 * blockSize });
        var stream = manager.GetStream("scan-ahead-test");
        stream.Write(body);
        stream.Position = 0;
        return stream;
    }

    // Replaces the start of the string value at or after offset with the planted text (so the body stays the same length or near).
    private static byte[] Plant(byte[] body, int offset, string planted)
    {
        var text = Encoding.UTF8.GetString(body);
        var at = text.IndexOf(": \"", offset, StringComparison.Ordinal);
        if (at < 0)
        {
            at = text.IndexOf(":\"", offset, StringComparison.Ordinal) - 1;
        }

        var start = at + 3;
        return Encoding.UTF8.GetBytes(string.Concat(text.AsSpan(0, start), planted, text.AsSpan(start + 1)));
    }

    private sealed class NullSink : IWidgetSink
    {
        public void Add(Widget widget)
        {
        }
    }
}
