using System.Net;
using System.Net.Http.Headers;
using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Docs;

/// <summary>
/// The README prints the JSON answer its first <c>readme-flow</c> request gets without <c>?output=canonical</c>
/// (<c>{"algorithm":"HMACSHA256","receiver":"partner-a","keyId":"local","signature":"bfdac605…",…}</c>). .ci/readme-flow runs the request and
/// checks the signature header against openssl, but nothing there reads that printed line: this test sends the README's
/// request to the app as <c>npm start</c> runs it, with the settings sample's key, and compares the answer with it.
/// </summary>
public sealed partial class ReadmeSampleAnswerTests(ReadmeSampleHostFixture fixture) : IClassFixture<ReadmeSampleHostFixture>
{
    [Fact]
    public async Task Readme_SampleAnswer_IsWhatTheAppAnswersTheReadmeRequestWithTheSampleKey()
    {
        // Arrange: the README's request (its first readme-flow block) and the answer it prints for it.
        var readme = RepoFiles.ReadAllText("README.md");
        var request = FirstFlowRequest().Match(readme);
        var printed = PrintedAnswer().Match(readme);
        Assert.True(request.Success, "README.md: the first readme-flow block no longer POSTs a file to /api/sign");
        Assert.True(printed.Success, "README.md: the sample answer {\"algorithm\":…,\"signature\":\"<hex>…\",…} is gone");
        using var body = new ByteArrayContent(await File.ReadAllBytesAsync(RepoFiles.File(request.Groups["file"].Value.Split('/'))));
        body.Headers.ContentType = new MediaTypeHeaderValue("application/json");

        // Act: as the README says, the same request without ?output=canonical.
        using var response = await fixture.Client.PostAsync(new Uri(request.Groups["path"].Value, UriKind.Relative), body);
        var answer = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(printed.Groups["algorithm"].Value, (string?)answer["algorithm"]);
        Assert.Equal(printed.Groups["receiver"].Value, (string?)answer["receiver"]);
        Assert.Equal(printed.Groups["keyId"].Value, (string?)answer["keyId"]);
        Assert.StartsWith(printed.Groups["signature"].Value, (string?)answer["signature"], StringComparison.Ordinal);
        Assert.Equal(int.Parse(printed.Groups["widgetCount"].Value, System.Globalization.CultureInfo.InvariantCulture), (int?)answer["widgetCount"]);
        Assert.Equal(int.Parse(printed.Groups["canonicalLength"].Value, System.Globalization.CultureInfo.InvariantCulture), (int?)answer["canonicalLength"]);
        Assert.Contains($"`{printed.Groups["signature"].Value}…` above", readme, StringComparison.Ordinal);
    }

    [GeneratedRegex(@"^<!-- readme-flow -->\n```bash\n(?:[^\n]*\n)*?curl [^\n]*""http://localhost:7071(?<path>/api/sign\?receiver=[a-z0-9-]+)&output=canonical""[^\n]*\n[^\n]*--data-binary @(?<file>\S+)", RegexOptions.Multiline)]
    private static partial Regex FirstFlowRequest();

    [GeneratedRegex(@"`\{""algorithm"":""(?<algorithm>[^""]+)"",""receiver"":""(?<receiver>[a-z0-9-]+)"",""keyId"":""(?<keyId>[^""]+)"",""signature"":""(?<signature>[0-9a-f]{8,})…"",""widgetCount"":(?<widgetCount>\d+),""canonicalLength"":(?<canonicalLength>\d+),…\}`")]
    private static partial Regex PrintedAnswer();
}
