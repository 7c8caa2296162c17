using System.Text;
using Azure.Storage.Blobs;
using FunctionApp.Tests.Queues;
using WidgetSigning.Queues;
using WidgetSigning.Primitives;
using FunctionApp.Tests.TestKit;

namespace WidgetSigning.Tests.Queues;

/// <summary>A claim check must not make the service read a blob outside the claim-check container.</summary>
public sealed class ClaimCheckBlobNameTests
{
    private const string Container = "widget-claims";

    public static TheoryData<string> TraversalNames => new()
    {
        "../widget-canonical/secret.json",
        "a/../../widget-canonical/secret.json",
        "..",
        ".",
        "./a.json",
        "a/./b.json",
        "a/..",
        "/widget-canonical/secret.json",
        "//secret.json",
        "..\\widget-canonical\\secret.json",
        "a\\b.json",
        "a\u0000b.json",
        "a\nb.json",
        "a\u007fb.json",
        new string('a', ClaimCheckBlobName.MaxLength + 1),
        "",
    };

    [Theory]
    [MemberData(nameof(TraversalNames))]
    public void ClaimCheck_PathTraversal_IsRejected(string name)
    {
        // Arrange
        var json = ClaimCheckJson.Write(new BlobReference(Container, name));

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheck.TryRead(Message(json), Container, out _));

        // Assert
        Assert.Equal("$.claimCheck.blob", error.Problem.JsonPath);
        Assert.DoesNotContain("secret", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(TraversalNames))]
    public void Resolve_PathTraversal_IsRejectedBeforeAnyRequest(string name)
    {
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => ClaimCheckBlobName.Resolve(Claims(), name));
        Assert.Equal("$.claimCheck.blob", error.Problem.JsonPath);
    }

    [Theory]
    [InlineData("a.json")]
    [InlineData("2026/11/21/order-42.json")]
    [InlineData("..a/b..json")]
    [InlineData("%2e%2e/%2e%2e/widget-canonical/secret.json")]
    [InlineData("a/%2F../b.json")]
    [InlineData("order \"42\" ü.json")]
    [InlineData("a.json?comp=list&restype=container")]
    [InlineData("a.json#fragment")]
    public void Resolve_OrdinaryName_StaysUnderTheContainerPath(string name)
    {
        // Arrange
        var container = Claims();

        // Act
        var blob = ClaimCheckBlobName.Resolve(container, name);

        // Assert: the request URI addresses this container; percent signs are sent escaped, never decoded into a path.
        Assert.StartsWith(container.Uri.AbsolutePath + "/", blob.Uri.AbsolutePath, StringComparison.Ordinal);
        Assert.Equal(Container, blob.BlobContainerName);
        Assert.Equal(name, blob.Name);

        // Nor can a name smuggle a query or fragment into the request (another operation on another resource).
        Assert.Equal(string.Empty, blob.Uri.Query);
        Assert.Equal(string.Empty, blob.Uri.Fragment);
    }

    private static BlobContainerClient Claims() =>
        new BlobServiceClient(new Uri("http://127.0.0.1:10000/devstoreaccount1")).GetBlobContainerClient(Container);

    private static SigningQueueMessage Message(string json) => new("id-1", 1, null, Encoding.UTF8.GetBytes(json));
}
