using System.Globalization;
using WidgetSigning.Envelopes;

namespace WidgetSigning.Tests.Envelopes;

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
        Assert.Equal(expectedRoundTrip, Describe(utc));
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
    [InlineData("2022-10-07T22:21:35+14:01")]
    [InlineData("2022-10-07T22:21:35-14:30")]
    [InlineData("2022-10-07T22:21:35+14:59")]
    [InlineData("2022-10-07T22:21:35+02:60")]
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

    [Theory]
    [InlineData("+14:01")]
    [InlineData("+14:59")]
    [InlineData("-14:59")]
    [InlineData("-15:00")]
    public void TryParse_OffsetBeyondFourteenHoursAttack_IsRejectedNamingTheBound(string offset)
    {
        // Act: the old check let any minutes through at 14 hours.
        var ok = IsoDateTimeParser.TryParse("2022-10-07T22:21:35" + offset, out _, out var error);

        // Assert
        Assert.False(ok);
        Assert.Contains("-14:00 … +14:00", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("+14:00", "2022-10-07T08:21:35.0000000Z")]
    [InlineData("-14:00", "2022-10-08T12:21:35.0000000Z")]
    public void TryParse_OffsetAtTheBound_IsAccepted(string offset, string expected)
    {
        // Act
        var ok = IsoDateTimeParser.TryParse("2022-10-07T22:21:35" + offset, out var utc, out var error);

        // Assert
        Assert.True(ok, error);
        Assert.Equal(expected, Describe(utc));
    }

    /// <summary>Round-trip text of an instant, for messages and assertions (the app never formats dates this way).</summary>
    private static string Describe(DateTime value) => value.ToString("O", CultureInfo.InvariantCulture);
}
