using System.Globalization;
using FunctionApp.Tests.TestKit;

namespace WidgetSigning.Tests.Signing;

/// <summary>The canonical bytes never depend on the server's time zone or culture (docs/signing-contract.md).</summary>
[Collection(SerialCollection.Name)]
public sealed class EnvironmentIndependenceTests
{
    public static TheoryData<string, string> Environments => new()
    {
        { "Asia/Kolkata", "hi-IN" },
        { "America/St_Johns", "th-TH" },
        { "Pacific/Kiritimati", "ar-SA" },
        { "America/Los_Angeles", "tr-TR" },
    };

    [Theory]
    [MemberData(nameof(Environments))]
    public void Sign_NonUtcZoneAndNonInvariantCulture_GivesTheVectorSignatures(string timeZone, string culture)
    {
        // Arrange
        var services = new TestServices();
        var previousTz = Environment.GetEnvironmentVariable("TZ");
        var previousCulture = CultureInfo.CurrentCulture;
        var previousUiCulture = CultureInfo.CurrentUICulture;
        try
        {
            Environment.SetEnvironmentVariable("TZ", timeZone);
            TimeZoneInfo.ClearCachedData();
            CultureInfo.CurrentCulture = CultureInfo.CurrentUICulture = new CultureInfo(culture);
            Assert.NotEqual(TimeSpan.Zero, TimeZoneInfo.Local.GetUtcOffset(new DateTime(2022, 10, 7, 22, 21, 35, DateTimeKind.Utc)));
            Assert.Equal(timeZone, TimeZoneInfo.Local.Id);

            foreach (var vector in Vector.All().Where(v => !v.Reject))
            {
                // Act
                var envelope = services.Read(vector.Input);
                using var signed = services.Signer.SignWith(envelope);

                // Assert
                Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
            }
        }
        finally
        {
            Environment.SetEnvironmentVariable("TZ", previousTz);
            TimeZoneInfo.ClearCachedData();
            CultureInfo.CurrentCulture = previousCulture;
            CultureInfo.CurrentUICulture = previousUiCulture;
        }
    }
}
