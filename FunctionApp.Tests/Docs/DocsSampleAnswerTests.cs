using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Docs;

/// <summary>
/// docs/api.md prints the JSON answer to its sign request (its <c>docs-flow</c> block, which .ci/readme-flow runs). This
/// sends that request to the isolated app as <c>npm start</c> runs it, with the settings sample's key, and compares: the
/// same fields, the same signature in full, and a <c>webhook</c> signature that is the MAC, with that key, of the printed
/// id and timestamp over the canonical bytes the app signs.
/// </summary>
public sealed partial class DocsSampleAnswerTests(ReadmeSampleHostFixture fixture) : IClassFixture<ReadmeSampleHostFixture>
{
    [Fact]
    public async Task ApiDoc_SignSampleAnswer_IsWhatTheAppAnswersItsRequestWithTheSampleKey()
    {
        // Arrange: api.md's request and the answer it prints.
        var doc = RepoFiles.ReadAllText("docs", "api.md");
        var example = SignExample().Match(doc);
        Assert.True(example.Success, "docs/api.md: the docs-flow curl to /api/sign followed by its JSON answer is gone");
        var printed = JObject.Parse(example.Groups["answer"].Value);
        var input = await File.ReadAllBytesAsync(RepoFiles.File(example.Groups["file"].Value.Split('/')));

        // Act: the request as printed, and the canonical bytes the app signs for it.
        using var response = await PostAsync(example.Groups["path"].Value, input);
        var answer = JObject.Parse(await response.Content.ReadAsStringAsync());
        using var canonicalResponse = await PostAsync(example.Groups["path"].Value + "?output=canonical", input);
        var canonical = await canonicalResponse.Content.ReadAsByteArrayAsync();

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(HttpStatusCode.OK, canonicalResponse.StatusCode);
        Assert.Equal(Names(answer), Names(printed));
        foreach (var field in new[] { "algorithm", "keyId", "signature", "widgetCount", "canonicalLength" })
        {
            Assert.Equal(answer[field]!.ToString(), printed[field]!.ToString());
        }

        var printedEntry = Assert.Single(printed["signatures"]!);
        var entry = Assert.Single(answer["signatures"]!);
        Assert.Equal(entry["keyId"]!.ToString(), printedEntry["keyId"]!.ToString());
        Assert.Equal(entry["state"]!.ToString(), printedEntry["state"]!.ToString());
        Assert.StartsWith(printedEntry["signature"]!.ToString().TrimEnd('…'), entry["signature"]!.ToString(), StringComparison.Ordinal);
        Assert.Equal(Names((JObject)answer["webhook"]!), Names((JObject)printed["webhook"]!));
        Assert.Matches("^msg_[0-9a-f]{32}$", printed["webhook"]!["id"]!.ToString());
        var signed = Encoding.UTF8.GetBytes($"{printed["webhook"]!["id"]}.{printed["webhook"]!["timestamp"]}.").Concat(canonical).ToArray();
        var mac = HMACSHA256.HashData(Convert.FromBase64String(ReadmeSampleHostFixture.SampleKey), signed);
        Assert.Equal("v1," + Convert.ToBase64String(mac), printed["webhook"]!["signature"]!.ToString());
    }

    private async Task<HttpResponseMessage> PostAsync(string path, byte[] input)
    {
        using var body = new ByteArrayContent(input);
        body.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        return await fixture.Client.PostAsync(new Uri(path, UriKind.Relative), body);
    }

    private static string[] Names(JObject json) => [.. json.Properties().Select(p => p.Name).Order(StringComparer.Ordinal)];

    [GeneratedRegex(@"^<!-- docs-flow -->\n```bash\ncurl [^\n]*""http://localhost:7071(?<path>/api/sign)""[^\n]*\n(?:[^\n]*\n)*?[^\n]*--data-binary @(?<file>\S+)\n```\n.*?```json\n(?<answer>.*?)\n```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex SignExample();
}
