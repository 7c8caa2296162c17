using System.Text;
using WidgetSigning.Envelopes;
using WidgetSigning.Queues;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Queues;

/// <summary>Client text echoed into a rejected message is bounded: the message always fits a queue message (64 KiB).</summary>
public sealed class RejectedMessageBoundTests
{
    private const int QueueMessageLimit = 64 * 1024;
    private static readonly string Huge = new('m', 60 * 1024);

    public static TheoryData<string> HostileMessages => new()
    {
        // A 60 KB member name inside the claim check, as its first member, and as the claim check's container.
        "{\"claimCheck\":{\"" + Huge + "\":\"x\"}}",
        "{\"claimCheck\":{\"blob\":\"x\",\"" + Huge + "\":1}}",
        "{\"claimCheck\":{\"container\":\"" + Huge + "\",\"blob\":\"x\"}}",
        "{\"claimCheck\":{\"blob\":\"" + Huge + "\"}}",
        "{\"claimCheck\":{\"blob\":\"x\"},\"" + Huge + "\":1}",

        // The same name in an envelope (the reader's messages quote member names).
        "{\"widgets\":[{\"" + Huge + "\":\"x\"}]}",
        "{\"" + Huge + "\":[]}",
    };

    [Theory]
    [MemberData(nameof(HostileMessages))]
    public void ToJson_60KBMemberName_StaysUnderTheQueueLimitOnceBase64Encoded(string json)
    {
        // Arrange
        var message = new SigningQueueMessage("id-1", 1, DateTimeOffset.UnixEpoch, Encoding.UTF8.GetBytes(json));
        var (reason, path) = Judge(message);

        // Act
        var rejected = new RejectedMessage
        {
            MessageId = message.Id,
            DequeueCount = 1,
            Reason = reason,
            JsonPath = path,
            Body = new BlobReference("widget-rejected", message.Id),
        }.ToJson();

        // Assert: what the collector sends is base64 of the UTF-8 JSON.
        var sent = Convert.ToBase64String(Encoding.UTF8.GetBytes(rejected));
        Assert.True(sent.Length < QueueMessageLimit / 4, $"the rejected message should be small; it is {sent.Length} characters");
        Assert.DoesNotContain(Huge, rejected, StringComparison.Ordinal);
    }

    /// <summary>The reason and path the function would reject <paramref name="message"/> with (claim check first, then the envelope reader).</summary>
    private static (string Reason, string Path) Judge(SigningQueueMessage message)
    {
        try
        {
            if (ClaimCheck.TryRead(message, "widget-claims", out _))
            {
                throw new InvalidOperationException("the claim check should have been rejected");
            }

            using var body = message.OpenBody();
            new WidgetEnvelopeReader().Read(body);
            throw new InvalidOperationException("the envelope should have been rejected");
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.MessageRejected))
        {
            return (ex.Message, ex.Problem.JsonPath!);
        }
        catch (ProblemException ex) when (ex.Is(Problems.Types.InvalidEnvelope))
        {
            return (ex.Message, ex.Problem.JsonPath!);
        }
    }
}
