using WidgetSigning.Keys;

namespace WidgetSigning.Tests.Keys;

/// <summary>A receiver id becomes part of a Key Vault secret's path: nothing that could reach another secret, a version or a query is an id.</summary>
public sealed class ReceiverIdPathTrickTests
{
    public static TheoryData<string> PathTricks() => new()
    {
        "../x",
        "a/versions/b",
        "a%2Fb",
        "A",
        "a b",
        new string('a', 64),
        string.Empty,
        "receiver-x?api-version=1",
        "a\\b",
        "a.b",
        "a#b",
        "a\u0131",
    };

    [Theory]
    [MemberData(nameof(PathTricks))]
    public void ReceiverId_PathTrick_Refused(string value)
    {
        // Act
        var parsed = ReceiverId.TryParse(value, out var receiver);

        // Assert
        Assert.False(parsed);
        Assert.Null(receiver);
        Assert.Throws<ArgumentException>(() => ReceiverId.Parse(value));
    }

    [Fact]
    public void ReceiverId_SixtyThreeAllowedCharacters_Accepted()
    {
        // Arrange: the longest id, every kind of allowed character.
        var value = "a-0" + new string('z', ReceiverId.MaxLength - 3);

        // Act
        var parsed = ReceiverId.TryParse(value, out var receiver);

        // Assert
        Assert.True(parsed);
        Assert.Equal(value, receiver!.Value);
    }
}
