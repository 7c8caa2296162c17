using System.Text;
using FunctionApp.Tests.TestKit;
using FunctionApp.Tests.Queues;
using WidgetSigning.Queues;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Queues;

public sealed class ClaimCheckTests
{
    private const string Container = "widget-claims";
    private const int MaxReceivers = 8;

    [Theory]
    [InlineData("{\"claimCheck\":{\"container\":\"widget-claims\",\"blob\":\"a/b.json\"}}")]
    [InlineData("{\"claimCheck\":{\"blob\":\"a/b.json\"}}")]
    [InlineData("\uFEFF{ \"claimCheck\" : { \"blob\" : \"a/b.json\" } }")]
    public void TryRead_ValidClaimCheck_ReturnsTheBlobInTheConfiguredContainer(string json)
    {
        // Act
        var isClaimCheck = ClaimCheck.TryRead(Message(json), Container, out var reference);

        // Assert
        Assert.True(isClaimCheck);
        Assert.Equal(new BlobReference(Container, "a/b.json"), reference);
    }

    [Theory]
    [InlineData("{\"widgets\":[]}")]
    [InlineData("not json at all")]
    [InlineData("[1,2]")]
    [InlineData("")]
    public void TryRead_NotAClaimCheck_ReturnsFalseForTheEnvelopeReader(string json)
    {
        Assert.False(ClaimCheck.TryRead(Message(json), Container, out var reference));
        Assert.Null(reference);
    }

    [Theory]
    [InlineData("{\"claimCheck\":{\"container\":\"other\",\"blob\":\"x\"}}", "$.claimCheck.container")]
    [InlineData("{\"claimCheck\":{}}", "$.claimCheck")]
    [InlineData("{\"claimCheck\":{\"blob\":\"\"}}", "$.claimCheck.blob")]
    [InlineData("{\"claimCheck\":{\"blob\":42}}", "$.claimCheck.blob")]
    [InlineData("{\"claimCheck\":{\"blob\":\"x\",\"sas\":\"y\"}}", "$.claimCheck.sas")]
    [InlineData("{\"claimCheck\":\"x\"}", "$.claimCheck")]
    [InlineData("{\"claimCheck\":{\"blob\":\"x\"},\"widgets\":[]}", "$.widgets")]
    public void TryRead_MalformedClaimCheck_IsRejectedWithItsPath(string json, string path)
    {
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, out _));
        Assert.Equal(path, error.Problem.JsonPath);
        Assert.False(string.IsNullOrWhiteSpace(error.Message));
    }

    [Theory]
    [InlineData("{\"claimCheck\":{\"blob\":\"a/b.json\"},\"receivers\":[\"partner-a\",\"partner-b\"]}")]
    [InlineData("{ \"claimCheck\" : { \"container\" : \"widget-claims\" , \"blob\" : \"a/b.json\" } , \"receivers\" : [ \"partner-a\" , \"partner-b\" ] }")]
    public void TryRead_ClaimCheckWithReceivers_ReadsThem(string json)
    {
        // Act
        var isClaimCheck = ClaimCheck.TryRead(Message(json), Container, MaxReceivers, out var reference, out var receivers);

        // Assert
        Assert.True(isClaimCheck);
        Assert.Equal(new BlobReference(Container, "a/b.json"), reference);
        Assert.Equal(["partner-a", "partner-b"], receivers!.Select(r => r.Value));
    }

    [Theory]
    [InlineData("{\"receivers\":[\"partner-a\"],\"claimCheck\":{\"blob\":\"a/b.json\"}}", "$.receivers", "must follow 'claimCheck'")]
    [InlineData("{\"ClaimCheck\":{\"blob\":\"a/b.json\"}}", "$.ClaimCheck", "case-sensitive")]
    [InlineData("{\"Receivers\":[\"partner-a\"],\"claimCheck\":{\"blob\":\"a/b.json\"}}", "$.Receivers", "case-sensitive")]
    [InlineData("{\"claimCheck\":{\"blob\":\"a/b.json\"},\"Receivers\":[\"partner-a\"]}", "$.Receivers", "member 'Receivers'")]
    [InlineData("{\"claimCheck\":{\"Blob\":\"a/b.json\"}}", "$.claimCheck.Blob", "member 'Blob'")]
    [InlineData("{\"claimCheck\":{\"Container\":\"widget-claims\",\"blob\":\"a/b.json\"}}", "$.claimCheck.Container", "member 'Container'")]
    [InlineData("{\"claimCheck\":{\"blob\":\"a/b.json\"},\"TraceParent\":\"x\"}", "$.TraceParent", "member 'TraceParent'")]
    [InlineData("{\"claimCheck\":{\"blob\":\"a/b.json\"},\"traceparent\":\"x\",\"receivers\":[\"partner-a\"]}", "$.receivers", "member 'receivers'")]
    public void TryRead_MembersOutOfOrderOrMisspeltAttack_IsRejectedAsTheQueuePageSays(string json, string path, string reason)
    {
        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, MaxReceivers, out _, out _));

        // Assert: strict, as the envelope is: claimCheck first, then receivers, then traceparent, names as written.
        Assert.Equal(path, error.Problem.JsonPath);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TryRead_ClaimCheckWithoutReceivers_LeavesThemForTheDefaultReceiver()
    {
        // Act
        var isClaimCheck = ClaimCheck.TryRead(Message("{\"claimCheck\":{\"blob\":\"a/b.json\"}}"), Container, MaxReceivers, out var reference, out var receivers);

        // Assert
        Assert.True(isClaimCheck);
        Assert.NotNull(reference);
        Assert.Null(receivers);
    }

    [Fact]
    public void TryRead_BareEnvelopeWithReceiversOverload_IsStillNotAClaimCheck()
    {
        // Act
        var isClaimCheck = ClaimCheck.TryRead(Message("{\"widgets\":[]}"), Container, MaxReceivers, out var reference, out var receivers);

        // Assert: the envelope reader judges it, and it names no receiver.
        Assert.False(isClaimCheck);
        Assert.Null(reference);
        Assert.Null(receivers);
    }

    [Theory]
    [InlineData("{\"receivers\":[\"partner-a\"]}")]
    [InlineData("{\"receivers\":[\"partner-a\"],\"widgets\":[]}")]
    public void TryRead_ReceiversWithoutClaimCheckAttack_IsRejected(string json)
    {
        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, MaxReceivers, out _, out _));

        // Assert: receivers are named in the claim-check form only, never beside an envelope.
        Assert.StartsWith("$", error.Problem.JsonPath, StringComparison.Ordinal);
        Assert.Contains("'claimCheck'", error.Message, StringComparison.Ordinal);
    }

    public static TheoryData<string, string, string> MalformedReceivers => new()
    {
        { "[]", "$.receivers", "names no receiver" },
        { "\"partner-a\"", "$.receivers", "must be an array" },
        { "{\"0\":\"partner-a\"}", "$.receivers", "must be an array" },
        { "null", "$.receivers", "must be an array" },
        { "[\"partner-a\",42]", "$.receivers[1]", "is not a receiver id" },
        { "[[\"partner-a\"]]", "$.receivers[0]", "is not a receiver id" },
        { "[\"partner-a\",null]", "$.receivers[1]", "is not a receiver id" },
        { "[\"\"]", "$.receivers[0]", "is not a receiver id" },
        { "[\"A\"]", "$.receivers[0]", "'A' is not a receiver id" },
        { "[\"../x\"]", "$.receivers[0]", "'../x' is not a receiver id" },
        { "[\"a/versions/b\"]", "$.receivers[0]", "'a/versions/b' is not a receiver id" },
        { "[\"partner-a\",\"" + new string('a', 64) + "\"]", "$.receivers[1]", "is not a receiver id" },
        { "[\"partner\u202Ea\"]", "$.receivers[0]", "'partner\\u202Ea' is not a receiver id" },
        { "[\"partner-a\",\"partner-b\",\"partner-a\"]", "$.receivers[2]", "names receiver 'partner-a' twice" },
        { "[\"r1\",\"r2\",\"r3\",\"r4\",\"r5\",\"r6\",\"r7\",\"r8\",\"r9\"]", "$.receivers", "more than 8 receivers" },
    };

    [Theory]
    [MemberData(nameof(MalformedReceivers))]
    public void TryRead_MalformedReceivers_IsRejectedNamingTheReceiversPath(string receivers, string path, string reason)
    {
        // Arrange
        var json = "{\"claimCheck\":{\"blob\":\"a/b.json\"},\"receivers\":" + receivers + "}";

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, MaxReceivers, out _, out _));

        // Assert
        Assert.Equal(path, error.Problem.JsonPath);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\u202E', error.Message);
    }

    [Theory]
    [InlineData("\u202E")]
    [InlineData("\u001B[2J")]
    [InlineData("x")]
    public void TryRead_HugeHostileReceiverIdAttack_EchoIsEscapedAndBounded(string unit)
    {
        // Arrange: a 40,000-character id of characters a terminal or bidi renderer would act on.
        var id = string.Concat(Enumerable.Repeat(unit, 40_000 / unit.Length));
        var json = "{\"claimCheck\":{\"blob\":\"a/b.json\"},\"receivers\":[" + Newtonsoft.Json.JsonConvert.ToString(id) + "]}";

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, MaxReceivers, out _, out _));

        // Assert: a bounded prefix, every such character written as \uXXXX.
        Assert.Equal("$.receivers[0]", error.Problem.JsonPath);
        Assert.True(error.Message.Length < 512, $"{error.Message.Length} characters echoed");
        Assert.DoesNotContain('\u202E', error.Message);
        Assert.DoesNotContain('\u001B', error.Message);
        Assert.Contains("chars)", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TryRead_ReceiversMemberTwiceAttack_IsRejected()
    {
        // Arrange: a second list would let one reader see one set of receivers and another the other.
        var json = "{\"claimCheck\":{\"blob\":\"a/b.json\"},\"receivers\":[\"partner-a\"],\"receivers\":[\"partner-b\"]}";

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, MaxReceivers, out _, out _));

        // Assert
        Assert.Equal("$.receivers", error.Problem.JsonPath);
        Assert.Contains("duplicate member 'receivers'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TryRead_HugeReceiversArrayAttack_RejectedAtTheBound()
    {
        // Arrange: 100,000 ids; the one right after the bound is malformed, so a reader that went one further would
        // report that instead, and the array is never closed, so one that read to the end would report that.
        static byte[] Attack(int count) => Encoding.UTF8.GetBytes(
            "{\"claimCheck\":{\"blob\":\"a/b.json\"},\"receivers\":[" +
            string.Join(',', Enumerable.Range(0, count).Select(i => i == MaxReceivers + 1 ? "\"BAD\"" : $"\"r{i}\"")));
        var small = Attack(25_000);
        var large = Attack(100_000);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(large), Container, MaxReceivers, out _, out _));
        var (ratio, smallMs, largeMs) = await LinearTime.MeasureAsync(
            body =>
            {
                // Many reads per sample: one read at the bound takes microseconds.
                for (var i = 0; i < 200; i++)
                {
                    ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(body), Container, MaxReceivers, out _, out _));
                }

                return Task.CompletedTask;
            },
            small,
            large);

        // Assert: rejected at the bound, in time that does not grow with the array's length past it.
        Assert.Equal("$.receivers", error.Problem.JsonPath);
        Assert.Contains($"more than {MaxReceivers} receivers", error.Message, StringComparison.Ordinal);
        Assert.True(ratio <= LinearTime.MaxRatio, $"4x the array took {ratio:F2}x as long ({smallMs:F3} ms, {largeMs:F3} ms)");
    }

    [Fact]
    public void Write_RoundTrips_ThroughTryRead()
    {
        var json = ClaimCheckJson.Write(new BlobReference(Container, "2026/11/21/order \"42\".json"));
        Assert.True(ClaimCheck.TryRead(Message(json), Container, out var reference));
        Assert.Equal("2026/11/21/order \"42\".json", reference!.Blob);
    }

    private static SigningQueueMessage Message(string json) => Message(Encoding.UTF8.GetBytes(json));

    private static SigningQueueMessage Message(byte[] body) => new("id-1", 1, null, body);
}
