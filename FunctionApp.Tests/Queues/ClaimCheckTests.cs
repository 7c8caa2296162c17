using System.Text;
using WidgetSigning.Queues;

namespace FunctionApp.Tests.Queues;

public sealed class ClaimCheckTests
{
    private const string Container = "widget-claims";

    [Theory]
    [InlineData("{\"claimCheck\":{\"container\":\"widget-claims\",\"blob\":\"a/b.json\"}}")]
    [InlineData("{\"claimCheck\":{\"blob\":\"a/b.json\"}}")]
    [InlineData("\uFEFF{ \"ClaimCheck\" : { \"Blob\" : \"a/b.json\" } }")]
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
        var error = Assert.Throws<MessageRejectedException>(() => ClaimCheck.TryRead(Message(json), Container, out _));
        Assert.Equal(path, error.JsonPath);
        Assert.False(string.IsNullOrWhiteSpace(error.Message));
    }

    [Fact]
    public void Write_RoundTrips_ThroughTryRead()
    {
        var json = ClaimCheckJson.Write(new BlobReference(Container, "2026/11/21/order \"42\".json"));
        Assert.True(ClaimCheck.TryRead(Message(json), Container, out var reference));
        Assert.Equal("2026/11/21/order \"42\".json", reference!.Blob);
    }

    private static SigningQueueMessage Message(string json) => new("id-1", 1, null, Encoding.UTF8.GetBytes(json));
}
