using FunctionApp.Signing;
using FunctionApp.Tests.Infrastructure;

namespace FunctionApp.Tests.Signing;

/// <summary>Our member-by-member writer against Newtonsoft's reflection serializer, the definition in CANONICAL.md.</summary>
public sealed class CanonicalEquivalenceTests
{
    public static TheoryData<int> Seeds()
    {
        var data = new TheoryData<int>();
        for (var seed = 1; seed <= 40; seed++)
        {
            data.Add(seed);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void WriteCanonical_RandomEnvelope_IsByteIdenticalToNewtonsoft(int seed)
    {
        // Arrange
        var (ours, theirs) = RandomEnvelopes.Create(seed, widgets: 25);
        var expected = SeedShapes.SerializeWithNewtonsoft(theirs);

        // Act
        using var actual = new MemoryStream();
        EnvelopeSigner.WriteCanonical(ours, actual);

        // Assert
        Assert.Equal(expected, actual.ToArray());
    }
}
