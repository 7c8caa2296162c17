using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Docs;

/// <summary>
/// CI runs the README's own "Try it" commands (.ci/readme-flow runs every fenced block after a
/// <c>&lt;!-- readme-flow --&gt;</c> line): the marked blocks must keep covering the whole flow, and CI must run them.
/// </summary>
public sealed partial class ReadmeFlowTests
{
    [Fact]
    public void Readme_FlowBlocks_SignCheckVerifyAndQueueInOrder()
    {
        // Arrange
        var readme = RepoFiles.ReadAllText("README.md");

        // Act
        var blocks = FlowBlock().Matches(readme).Select(m => m.Groups["body"].Value).ToList();

        // Assert
        Assert.Equal(6, blocks.Count);
        Assert.Contains("npm run -s audit -- find", blocks[5], StringComparison.Ordinal);
        Assert.Contains("webhook-id", blocks[5], StringComparison.Ordinal);
        Assert.Contains("npm run -s audit -- verify", blocks[5], StringComparison.Ordinal);
        Assert.Contains("http://localhost:7071/api/receivers/partner-c/jwks", blocks[4], StringComparison.Ordinal);
        Assert.Contains("openssl pkeyutl -verify -pubin", blocks[4], StringComparison.Ordinal);
        Assert.Contains("curl -sS -f -X POST \"http://localhost:7071/api/sign?receiver=partner-a&output=canonical\"", blocks[0], StringComparison.Ordinal);
        Assert.Contains("vectors/one-widget/input.json", blocks[0], StringComparison.Ordinal);
        Assert.Contains("openssl dgst -sha256 -mac HMAC", blocks[1], StringComparison.Ordinal);
        Assert.Contains("Signing:LocalKey", blocks[1], StringComparison.Ordinal);
        Assert.Contains("diff - computed.txt", blocks[1], StringComparison.Ordinal);
        Assert.Contains("Signing:LocalKeys:partner-b", blocks[1], StringComparison.Ordinal);
        Assert.Contains("\"valid\":false", blocks[2], StringComparison.Ordinal);
        Assert.Contains("http://localhost:7071/api/verify", blocks[2], StringComparison.Ordinal);
        Assert.Contains("node scripts/queue-sign.mjs", blocks[3], StringComparison.Ordinal);
        Assert.Contains("openssl dgst -sha256 -mac HMAC", blocks[3], StringComparison.Ordinal);
    }

    [Fact]
    public void CiRun_AfterTheTests_RunsTheReadmeFlowThatReadsTheReadme()
    {
        // Arrange
        var run = RepoFiles.ReadAllText(".ci", "run");
        var flow = RepoFiles.ReadAllText(".ci", "readme-flow");

        // Act
        var tests = run.IndexOf("dotnet test FunctionApp.slnx", StringComparison.Ordinal);
        var readmeFlow = run.IndexOf("\n.ci/readme-flow", StringComparison.Ordinal);

        // Assert
        Assert.True(tests >= 0 && readmeFlow > tests, ".ci/run must run .ci/readme-flow after the tests");
        Assert.Contains("/^<!-- readme-flow -->$/", flow, StringComparison.Ordinal);
        Assert.Contains("' README.md)", flow, StringComparison.Ordinal);
        Assert.Contains("setsid npm start", flow, StringComparison.Ordinal);
    }

    [Fact]
    public void Docs_FlowBlocks_SignAndCheckWithTheReadmesFiles()
    {
        // Arrange
        var docs = new[] { "api.md", "receivers.md", "signing-contract.md", "troubleshooting.md" }.ToDictionary(f => f, f => RepoFiles.ReadAllText("docs", f));

        // Act
        var blocks = docs.ToDictionary(d => d.Key, d => DocsFlowBlock().Matches(d.Value).Select(m => m.Groups["body"].Value).ToList());

        // Assert: api.md's sign request, the receivers' openssl and library checks, the contract's openssl line, the
        // troubleshooting page's queue peek.
        Assert.Contains("curl -sS -f -X POST \"http://localhost:7071/api/sign\"", Assert.Single(blocks["api.md"]), StringComparison.Ordinal);
        Assert.Equal(5, blocks["receivers.md"].Count);
        Assert.Contains("&& echo \"X-Signature OK\"", blocks["receivers.md"][0], StringComparison.Ordinal);
        Assert.Contains("&& echo \"webhook-signature OK\"", blocks["receivers.md"][1], StringComparison.Ordinal);
        Assert.StartsWith("node scripts/verify-webhook.mjs", blocks["receivers.md"][2], StringComparison.Ordinal);
        Assert.Contains("api/receivers/partner-c/jwks", blocks["receivers.md"][3], StringComparison.Ordinal);
        Assert.Contains("webhook-signature v1a OK", blocks["receivers.md"][3], StringComparison.Ordinal);
        Assert.Contains("X-Signature-Ed25519 OK", blocks["receivers.md"][4], StringComparison.Ordinal);
        Assert.Contains("openssl dgst -sha256 -mac HMAC", Assert.Single(blocks["signing-contract.md"]), StringComparison.Ordinal);
        Assert.Contains("peekMessages", Assert.Single(blocks["troubleshooting.md"]), StringComparison.Ordinal);
    }

    [Fact]
    public void ReadmeFlow_AfterTheReadme_RunsTheDocsFlowBlocks()
    {
        // Arrange
        var flow = RepoFiles.ReadAllText(".ci", "readme-flow");

        // Act
        var readme = flow.IndexOf("all ${#blocks[@]} README blocks passed", StringComparison.Ordinal);
        var docs = flow.IndexOf("/^<!-- docs-flow -->$/", StringComparison.Ordinal);

        // Assert
        Assert.True(readme >= 0 && docs > readme, ".ci/readme-flow must run the docs-flow blocks after the README's");
        Assert.Contains("for doc in docs/*.md; do", flow, StringComparison.Ordinal);
    }

    [GeneratedRegex(@"^<!-- docs-flow -->\n```bash\n(?<body>.*?)^```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex DocsFlowBlock();

    [GeneratedRegex(@"^<!-- readme-flow -->\n```bash\n(?<body>.*?)^```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex FlowBlock();
}
