using System.Net;
using System.Net.Http.Headers;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The strict-JSON cases (TestData/invalid-envelopes: comments, trailing commas, lone surrogates, bad dates, duplicate
/// members …) through the published isolated app over a socket: each is a 400 problem naming the same JSON path and
/// problem as the reader's own test (NAME.expected), with nothing signed.
/// </summary>
public sealed class IsolatedStrictJsonTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    private static readonly string Root = Path.Combine(AppContext.BaseDirectory, "TestData", "invalid-envelopes");

    public static TheoryData<string> Cases()
    {
        var data = new TheoryData<string>();
        foreach (var file in Directory.GetFiles(Root, "*.json").OrderBy(f => f, StringComparer.Ordinal))
        {
            data.Add(Path.GetFileNameWithoutExtension(file));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Sign_InvalidEnvelope_400NamingTheJsonPathAndTheProblem(string name)
    {
        // Arrange
        var expected = File.ReadAllLines(Path.Combine(Root, name + ".expected"));
        var content = new ByteArrayContent(File.ReadAllBytes(Path.Combine(Root, name + ".json")));
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");

        // Act
        using var response = await fixture.Client.PostAsync("/api/sign", content);
        var problem = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal(expected[0], (string?)problem["jsonPath"]);
        Assert.Contains(expected[1], (string?)problem["detail"], StringComparison.Ordinal);
        Assert.False(response.Headers.Contains("X-Signature"));
    }
}
