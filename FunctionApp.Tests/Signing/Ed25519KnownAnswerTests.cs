using System.Text;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Signing;

/// <summary>
/// Ed25519 (<c>v1a</c>) byte for byte: Svix's published vector from its <c>whsk_</c>, and our own vectors over every case's
/// canonical bytes, computed with Node's crypto (OpenSSL) rather than the app's BouncyCastle.
/// </summary>
public sealed class Ed25519KnownAnswerTests
{
    // svix-webhooks server/svix-server/src/worker.rs, test_asymmetric_key_signing.
    private const string SvixSecret = "whsk_6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbfVKIDij2HKpMKkioLlX0dRqSKJp4AJ6p9lMicMFs6Kvg==";
    private const string SvixPublic = "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=";
    private const string SvixSignature = "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==";
    private const string SvixSignedContent = "msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{\"test\": 2432232314}";

    private readonly TestServices _services = new();

    public static TheoryData<string> Vectors => Ed25519Vector.Names();

    [Theory]
    [InlineData(SvixSecret)]
    [InlineData("whsk_6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbc=")]
    public void Sign_SvixVectorIn64And32ByteForms_GivesSvixsV1aSignature(string secret)
    {
        // Arrange: Svix's 64-byte key, and the same seed alone (32 bytes), as the open Go and Python pull requests write it.
        var key = KeyMaterial.TryDecode(secret, "svix", null, out var reason);
        Assert.True(key is not null, reason);
        var signature = new byte[Ed25519Key.SignatureBytes];

        // Act
        key.Ed25519!.Sign(Encoding.UTF8.GetBytes(SvixSignedContent), signature);

        // Assert
        Assert.Equal(SvixSignature, StandardWebhooks.Ed25519VersionPrefix + Convert.ToBase64String(signature));
        Assert.Equal(SvixPublic, key.Ed25519.PublicKeyText);
        Assert.False(key.HasHmac);
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public async Task SignAsync_Ed25519VectorInputAtItsTimestamp_V1aAndPlainSignatureMatchNode(string name)
    {
        // Arrange: the whole signer, from input.json, an Ed25519-only receiver.
        var vector = Ed25519Vector.Load(name);
        var time = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(vector.Timestamp));
        var key = KeyMaterial.TryDecode(vector.Secret, "vector", null, out _)!;
        var signer = _services.CreateSigner(new FixedReceiverKeySource(key), time: time);
        var envelope = _services.Read(vector.Vector.Input);

        // Act
        using var signed = await signer.SignAsync(envelope, SigningTestExtensions.Request(webhookId: vector.Id), CancellationToken.None);

        // Assert
        Assert.Equal(vector.Signature, signed.Webhook!.Signature);
        Assert.Equal(vector.PlainSignature, Assert.Single(signed.Ed25519Signatures).ToBase64());
        Assert.Equal(vector.PublicKey, key.Ed25519!.PublicKeyText);
        Assert.False(signed.HasHmacSignature);
        Assert.Equal(SignatureAlgorithms.Ed25519, signed.Algorithm);
    }

    [Fact]
    public async Task SignAsync_ReceiverWithBothSchemes_V1EntryUnchangedThenTheV1aEntry()
    {
        // Arrange: one value holding the HMAC vector key and the Ed25519 vector key; the webhook vector's id and timestamp.
        var hmac = WebhookVector.Load("one-widget");
        var ed25519 = Ed25519Vector.Load("one-widget");
        var time = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(hmac.Timestamp));
        var key = KeyMaterial.TryDecode(hmac.Secret + " " + ed25519.Secret, "both", null, out var reason);
        Assert.True(key is not null, reason);
        var signer = _services.CreateSigner(new FixedReceiverKeySource(key), time: time);

        // Act
        using var signed = await signer.SignAsync(_services.Read(hmac.Vector.Input), SigningTestExtensions.Request(webhookId: hmac.Id), CancellationToken.None);

        // Assert: the HMAC answer as before, then one v1a entry that verifies over id.timestamp.canonical.
        var entries = signed.Webhook!.Signature.Split(' ');
        Assert.Equal(2, entries.Length);
        Assert.Equal(hmac.Signature, entries[0]);
        Assert.StartsWith(StandardWebhooks.Ed25519VersionPrefix, entries[1], StringComparison.Ordinal);
        var message = Encoding.ASCII.GetBytes($"{hmac.Id}.{hmac.Timestamp}.").Concat(hmac.Vector.Canonical).ToArray();
        Assert.True(key.Ed25519!.Verify(message, Convert.FromBase64String(entries[1][4..])));
        Assert.Equal(hmac.Vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(ed25519.PlainSignature, Assert.Single(signed.Ed25519Signatures).ToBase64());
        Assert.Equal(SignatureAlgorithms.Both, signed.Algorithm);
    }
}
