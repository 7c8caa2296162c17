using WidgetSigning.Keys;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// What a stored key value may be, and every malformed Ed25519 value refused with a reason that names the fault and never
/// the value: a Key Vault version so refused signs nothing (KeyVaultSecretKeys), a development setting stops the app.
/// </summary>
public sealed class Ed25519KeyMaterialTests
{
    private const string Seed = "6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbc=";
    private const string SeedAndPublic = "6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbfVKIDij2HKpMKkioLlX0dRqSKJp4AJ6p9lMicMFs6Kvg==";
    private const string Hmac = "fcBwc7CmsvOwrzWPyQgBaPqJitcrfxEq7xVHYQj3WtY=";

    public static TheoryData<string, string?, string> Attacks => new()
    {
        // The public half is one bit off the seed's public key.
        { "whsk_6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbfUKIDij2HKpMKkioLlX0dRqSKJp4AJ6p9lMicMFs6Kvg==", null, "is not the public key of its first half" },
        { "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=", null, "is a public key (whpk_)" },
        { "whsk_6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMQ==", null, "decodes to 31 bytes" },
        { "whsk_" + Seed[..21], null, "not base64" },
        { "whsk_" + Seed, KeyMaterial.HmacContentType + "; encoding=base64", "content type says HMAC" },
        { "whsec_" + Hmac, KeyMaterial.Ed25519ContentType + "; encoding=whsk", "content type says Ed25519" },
        { "-----BEGIN PRIVATE KEY----- MC4CAQAwBQYDK2VwBCIEIOl2/3QnB6T3mttT0tTfVWPzWVu9twhHO+zeKwpzGzG3 -----END PRIVATE KEY-----", null, "more than two keys" },
        { "whsk_" + Seed + " whsk_" + SeedAndPublic, null, "two Ed25519 keys" },
        { "whsec_" + Hmac + " " + Hmac, null, "two HMAC keys" },
        { "ssh-ed25519:AAAAC3NzaC1lZDI1NTE5AAAAINUogOKPYcqkwqSKguVfR1GpIomngAnqn2UyJwwWzoq+", null, "is not an HMAC key (whsec_ or bare base64) or an Ed25519 key (whsk_)" },
    };

    [Theory]
    [MemberData(nameof(Attacks))]
    public void TryDecode_MalformedOrMismatchedKeyAttack_RefusedNamingTheFaultNotTheValue(string value, string? contentType, string fault)
    {
        // Act
        var key = KeyMaterial.TryDecode(value, "v1", null, out var reason, contentType);

        // Assert
        Assert.Null(key);
        Assert.Contains(fault, reason, StringComparison.Ordinal);
        foreach (var part in value.Split(' '))
        {
            Assert.DoesNotContain(part.Length > 8 ? part[5..] : "\u0000", reason, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData(Hmac, true, false)]
    [InlineData("whsec_" + Hmac, true, false)]
    [InlineData("whsk_" + Seed, false, true)]
    [InlineData("whsk_" + SeedAndPublic, false, true)]
    [InlineData("whsec_" + Hmac + " whsk_" + Seed, true, true)]
    [InlineData("whsk_" + Seed + " " + Hmac, true, true)]
    public void TryDecode_EachAcceptedForm_HasTheSchemesItNames(string value, bool hmac, bool ed25519)
    {
        // Act
        var key = KeyMaterial.TryDecode(value, "v1", null, out var reason);

        // Assert
        Assert.True(key is not null, reason);
        Assert.Equal(hmac, key.HasHmac);
        Assert.Equal(ed25519, key.Ed25519 is not null);
    }

    [Fact]
    public void TryDecode_ValueLongerThanTheBoundAttack_RefusedUnread()
    {
        // Arrange
        var value = "whsk_" + new string('A', KeyMaterial.MaxValueLength);

        // Act
        var key = KeyMaterial.TryDecode(value, "v1", null, out var reason);

        // Assert
        Assert.Null(key);
        Assert.Contains($"at most {KeyMaterial.MaxValueLength}", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void ToString_Ed25519Key_ShowsOnlyThePublicKey()
    {
        // Arrange
        var key = KeyMaterial.TryDecode("whsk_" + SeedAndPublic, "v1", null, out _)!;

        // Act
        var text = key.Ed25519!.ToString();

        // Assert
        Assert.Contains("whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=", text, StringComparison.Ordinal);
        Assert.DoesNotContain(Seed[..40], text, StringComparison.Ordinal);
    }
}
