using FunctionApp.Tests.TestKit;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Signing;

public sealed class KnownAnswerTests
{
    private readonly TestServices _services = new();

    public static TheoryData<string> PositiveVectors => Vector.Names(reject: false);

    public static TheoryData<string> NegativeVectors => Vector.Names(reject: true);

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public void Sign_PositiveVector_GivesExactCanonicalBytesAndSignature(string name)
    {
        // Arrange
        var vector = Vector.Load(name);
        var envelope = _services.Read(vector.Input);

        // Act
        using var signed = _services.Signer.SignWith(envelope);
        using var canonical = new MemoryStream();
        signed.CopyCanonicalTo(canonical);

        // Assert
        Assert.Equal(vector.Canonical, canonical.ToArray());
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(vector.CanonicalLength, signed.CanonicalLength);
        Assert.Equal(vector.WidgetCount, signed.WidgetCount);
        Assert.Equal(vector.Algorithm, signed.Algorithm);
    }

    [Theory]
    [MemberData(nameof(NegativeVectors))]
    public void Read_NegativeVector_IsRejectedWithAPath(string name)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        var error = ProblemAssert.Throws(Problems.Types.InvalidEnvelope, () => _services.Read(vector.Input));

        // Assert
        Assert.StartsWith("$", error.Problem.JsonPath, StringComparison.Ordinal);
        Assert.False(string.IsNullOrWhiteSpace(error.Message));
    }

    [Fact]
    public void Vectors_AreAllPresent_CoverBothOutcomes()
    {
        Assert.True(PositiveVectors.Count >= 9, "expected the shared positive vectors to be copied");
        Assert.True(NegativeVectors.Count >= 2, "expected the shared negative vectors to be copied");
    }
}
