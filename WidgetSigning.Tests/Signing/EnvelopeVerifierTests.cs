using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace WidgetSigning.Tests.Signing;

public sealed class EnvelopeVerifierTests
{
    private readonly TestServices _services = new();

    public static TheoryData<string> PositiveVectors => Vector.Names(reject: false);

    private EnvelopeVerifier Verifier => new(_services.Streams, _services.KeySource);

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task VerifyAsync_VectorSignature_IsValidUnderLocalKey(string name)
    {
        // Arrange
        var vector = Vector.Load(name);
        Assert.True(Signature.TryParseHex(vector.SignatureHex, out var signature));

        // Act
        var outcome = await Verifier.VerifyAsync(_services.Read(vector.Input), SigningTestExtensions.DefaultReceiver, signature, null, webhook: null, CancellationToken.None);

        // Assert
        Assert.True(outcome.IsValid);
        Assert.Equal(ConfigurationReceiverKeySource.LocalKeyId, outcome.KeyId);
        Assert.Equal(VerificationFailure.None, outcome.Failure);
        Assert.Equal("HMACSHA256", outcome.Algorithm);
    }

    [Fact]
    public async Task VerifyAsync_NamedKeyId_IsValid()
    {
        var (envelope, signature) = Signed("one-widget");

        var outcome = await Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, ConfigurationReceiverKeySource.LocalKeyId, webhook: null, CancellationToken.None);

        Assert.True(outcome.IsValid);
    }

    [Fact]
    public async Task VerifyAsync_TamperedEnvelope_IsInvalid()
    {
        // Arrange: same signature, one property changed.
        var (_, signature) = Signed("one-widget");
        var tampered = System.Text.Encoding.UTF8.GetString(Vector.Load("one-widget").Input);
        var property = tampered.IndexOf("\"property0\"", StringComparison.Ordinal);
        Assert.True(property >= 0);
        var valueStart = tampered.IndexOf('"', tampered.IndexOf(':', property)) + 1;
        tampered = string.Concat(tampered.AsSpan(0, valueStart), "X", tampered.AsSpan(valueStart));

        // Act
        var outcome = await Verifier.VerifyAsync(_services.Read(System.Text.Encoding.UTF8.GetBytes(tampered)), SigningTestExtensions.DefaultReceiver, signature, null, webhook: null, CancellationToken.None);

        // Assert
        Assert.False(outcome.IsValid);
        Assert.Equal(VerificationFailure.SignatureMismatch, outcome.Failure);
        Assert.Null(outcome.KeyId);
    }

    [Fact]
    public async Task VerifyAsync_TamperedSignature_IsInvalid()
    {
        // Arrange: flip the last bit.
        var (envelope, signature) = Signed("one-widget");
        var bytes = signature.Bytes.ToArray();
        bytes[^1] ^= 1;

        // Act
        var outcome = await Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, new Signature(bytes), ConfigurationReceiverKeySource.LocalKeyId, webhook: null, CancellationToken.None);

        // Assert
        Assert.False(outcome.IsValid);
        Assert.Equal(VerificationFailure.SignatureMismatch, outcome.Failure);
        Assert.Equal(ConfigurationReceiverKeySource.LocalKeyId, outcome.KeyId);
    }

    [Fact]
    public async Task VerifyAsync_UnknownKeyId_IsInvalidWithoutTryingOtherKeys()
    {
        var (envelope, signature) = Signed("one-widget");

        var outcome = await Verifier.VerifyAsync(envelope, SigningTestExtensions.DefaultReceiver, signature, "0123456789abcdef0123456789abcdef", webhook: null, CancellationToken.None);

        Assert.False(outcome.IsValid);
        Assert.Equal(VerificationFailure.UnknownKeyId, outcome.Failure);
        Assert.Equal("0123456789abcdef0123456789abcdef", outcome.KeyId);
    }

    private (WidgetSigning.Envelopes.WidgetEnvelope Envelope, Signature Signature) Signed(string name)
    {
        var envelope = _services.Read(Vector.Load(name).Input);
        return (envelope, _services.Signer.ComputeSignature(envelope));
    }
}
