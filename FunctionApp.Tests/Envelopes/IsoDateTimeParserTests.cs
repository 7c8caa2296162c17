using FunctionApp.Envelopes;

namespace FunctionApp.Tests.Envelopes;

public sealed class IsoDateTimeParserTests
{
    [Theory]
    [InlineData("2022-10-07T22:21:35Z", "2022-10-07T22:21:35.0000000Z")]
    [InlineData("2022-10-07T22:21:35", "2022-10-07T22:21:35.0000000Z")]
    [InlineData("2022-10-07T22:21:35.1Z", "2022-10-07T22:21:35.1000000Z")]
    [InlineData("2022-10-07T22:21:35.1234567Z", "2022-10-07T22:21:35.1234567Z")]
    [InlineData("2022-10-08T00:21:35.5+02:00", "2022-10-07T22:21:35.5000000Z")]
    [InlineData("2022-10-07T17:51:35-04:30", "2022-10-07T22:21:35.0000000Z")]
    [InlineData("2024-02-29T23:59:59.9999999-14:00", "2024-03-01T13:59:59.9999999Z")]
    [InlineData("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.0000000Z")]
    public void TryParse_AcceptedForm_GivesUtcInstant(string text, string expectedRoundTrip)
    {
        // Act
        var ok = IsoDateTimeParser.TryParse(text, out var utc, out var error);

        // Assert
        Assert.True(ok, error);
        Assert.Equal(DateTimeKind.Utc, utc.Kind);
        Assert.Equal(expectedRoundTrip, IsoDateTimeParser.Describe(utc));
    }

    [Theory]
    [InlineData("2022-10-07")]
    [InlineData("2022-10-07 22:21:35Z")]
    [InlineData("2022-10-07T22:21:35.Z")]
    [InlineData("2022-10-07T22:21:35.12345678Z")]
    [InlineData("2022-10-07T24:00:00Z")]
    [InlineData("2022-13-01T00:00:00Z")]
    [InlineData("2022-10-07T22:21:35z")]
    [InlineData("2022-10-07T22:21:35+02")]
    [InlineData("2022-10-07T22:21:35+15:00")]
    [InlineData("0001-01-01T00:00:00+01:00")]
    [InlineData("9999-12-31T23:59:59-01:00")]
    [InlineData("１２３４-10-07T22:21:35Z")]
    [InlineData("")]
    public void TryParse_RejectedForm_ExplainsWhy(string text)
    {
        // Act
        var ok = IsoDateTimeParser.TryParse(text, out _, out var error);

        // Assert
        Assert.False(ok);
        Assert.False(string.IsNullOrWhiteSpace(error));
    }
}
