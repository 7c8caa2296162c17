using System.Security.Cryptography;
using System.Text;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Tests.Signing;

/// <summary><c>v1a</c> entries offered for verification: checked against the named receiver's public keys only, and over these bytes only.</summary>
public sealed class Ed25519VerifyTests
{
    private static readonly ReceiverId C = ReceiverId.Parse("partner-c");
    private static readonly ReceiverId D = ReceiverId.Parse("partner-d");
    private readonly TestServices _services = new();

    [Fact]
    public async Task VerifyAsync_V1aVectorForItsReceiver_ValidAndNamedEd25519()
    {
        // Arrange
        var (verifier, vector) = Arrange();

        // Act
        var outcome = await verifier.VerifyAsync(_services.Read(vector.Vector.Input), C, null, null, Claim(vector.Id, vector.Timestamp, vector.Signature), CancellationToken.None);

        // Assert
        Assert.True(outcome.IsValid);
        Assert.Equal(SignatureAlgorithms.Ed25519, outcome.Algorithm);
    }

    [Fact]
    public async Task VerifyAsync_V1aForAnotherReceiverAttack_Invalid()
    {
        // Arrange: partner-c's signature offered as partner-d's.
        var (verifier, vector) = Arrange();

        // Act
        var outcome = await verifier.VerifyAsync(_services.Read(vector.Vector.Input), D, null, null, Claim(vector.Id, vector.Timestamp, vector.Signature), CancellationToken.None);

        // Assert
        Assert.False(outcome.IsValid);
        Assert.Equal(VerificationFailure.SignatureMismatch, outcome.Failure);
    }

    [Fact]
    public async Task VerifyAsync_V1aMadeWithTheRightKeyOverOtherBytesAttack_Invalid()
    {
        // Arrange: the receiver's own key, over another webhook id's signed content.
        var (verifier, vector) = Arrange();
        var key = KeyMaterial.TryDecode(vector.Secret, "c", null, out _)!;
        var other = Encoding.ASCII.GetBytes($"msg_other.{vector.Timestamp}.").Concat(vector.Vector.Canonical).ToArray();
        var signature = new byte[Ed25519Key.SignatureBytes];
        key.Ed25519!.Sign(other, signature);

        // Act
        var outcome = await verifier.VerifyAsync(
            _services.Read(vector.Vector.Input), C, null, null, Claim(vector.Id, vector.Timestamp, "v1a," + Convert.ToBase64String(signature)), CancellationToken.None);

        // Assert
        Assert.False(outcome.IsValid);
        Assert.Equal(VerificationFailure.SignatureMismatch, outcome.Failure);
    }

    private (EnvelopeVerifier Verifier, Ed25519Vector Vector) Arrange()
    {
        var vector = Ed25519Vector.Load("one-widget");
        var keys = new FixedReceiverKeySource(new Dictionary<ReceiverId, SigningKeys>
        {
            [C] = new(KeyMaterial.TryDecode(vector.Secret, "c", null, out _)!, []),
            [D] = new(KeyMaterial.TryDecode("whsk_" + Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)), "d", null, out _)!, []),
        });
        var time = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(vector.Timestamp));
        return (new EnvelopeVerifier(_services.Streams, keys, time, Options.Create(new WebhookOptions())), vector);
    }

    private static WebhookClaim Claim(string id, long timestamp, string entry) =>
        new(id, timestamp, []) { Ed25519Signatures = [Convert.FromBase64String(entry["v1a,".Length..])] };
}
