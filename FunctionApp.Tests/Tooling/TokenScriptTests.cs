using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.TestKit;
using Microsoft.IdentityModel.JsonWebTokens;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// scripts/token.mjs (<c>npm run token</c>) against the real local issuer and a real Azurite: only the token on stdout,
/// <c>--roles</c> narrows it, <c>--receivers</c> makes the grants of a caller derived from the set exactly that set.
/// </summary>
public sealed class TokenScriptTests(NpmStartAzuriteFixture azurite) : IClassFixture<NpmStartAzuriteFixture>, IAsyncLifetime
{
    private const string GrantsTable = "callergrants";

    private LocalIssuerProcess _issuer = null!;

    public async Task InitializeAsync() => _issuer = await LocalIssuerProcess.StartAsync();

    public async Task DisposeAsync() => await _issuer.DisposeAsync();

    [Fact]
    public async Task Token_NoArguments_PrintsOnlyATokenForTheDefaultCallerWithEveryRole()
    {
        // Act
        var run = await RunAsync();

        // Assert: stdout is the token and a newline, nothing else.
        Assert.True(run.ExitCode == 0, run.Error);
        var jwt = new JsonWebToken(run.Output.TrimEnd('\n'));
        Assert.Equal(run.Output, jwt.EncodedToken + "\n");
        Assert.Equal(LocalIssuerProcess.DefaultCaller, jwt.GetClaim("oid").Value);
        Assert.Equal(_issuer.Authority, jwt.Issuer);
        Assert.Equal(WidgetSigning.Callers.AppRoles.All, jwt.Claims.Where(c => c.Type == "roles").Select(c => c.Value));
    }

    [Fact]
    public async Task Token_Roles_PrintsATokenWithOnlyThoseRoles()
    {
        // Act
        var run = await RunAsync("--roles", "Widgets.Verify");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(["Widgets.Verify"], new JsonWebToken(run.Output.Trim()).Claims.Where(c => c.Type == "roles").Select(c => c.Value));
    }

    [Fact]
    public async Task Token_Receivers_WritesExactlyThoseGrantsForTheCallerDerivedFromTheSet()
    {
        // Arrange: the derived caller already holds a grant outside the set, and another caller holds one too.
        var caller = DerivedCaller("partner-a", "partner-b");
        await NodeTablesAsync($"await t.createTable(); await t.upsertEntity({{ partitionKey: '{caller}', rowKey: 'partner-z', GrantedBy: 'x', GrantedAt: new Date() }}); "
            + "await t.upsertEntity({ partitionKey: '0f0e0000-0000-4000-8000-000000000001', rowKey: 'partner-a', GrantedBy: 'x', GrantedAt: new Date() });");

        // Act: the set in another order names the same caller.
        var run = await RunAsync("--receivers", "partner-b,partner-a");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(caller, new JsonWebToken(run.Output.Trim()).GetClaim("oid").Value);
        var grants = await GrantsAsync();
        Assert.Equal(["partner-a", "partner-b"], grants.Where(g => g.Caller == caller).Select(g => g.Receiver).Order(StringComparer.Ordinal));
        Assert.All(grants.Where(g => g.Caller == caller), g => Assert.Equal("npm run token", g.GrantedBy));
        Assert.Contains(grants, g => g is { Caller: "0f0e0000-0000-4000-8000-000000000001", Receiver: "partner-a" });
    }

    [Theory]
    [InlineData("Partner-A")]
    [InlineData("partner-a,partner_b")]
    [InlineData("")]
    public async Task Token_ReceiversNotReceiverIds_ExitsTwoNamingItAndWritesNothing(string receivers)
    {
        // Act
        var run = await RunAsync("--receivers", receivers);

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains("--receivers", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Token_UnknownRole_FailsWithTheIssuersReasonAndPrintsNoToken()
    {
        // Act
        var run = await RunAsync("--roles", "Widgets.Admin");

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("(400): roles: Unknown role 'Widgets.Admin'", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Token_IssuerNotRunning_SaysRunNpmStartAndPrintsNoToken()
    {
        // Arrange
        var port = Loopback.FreePort();

        // Act
        var run = await RunAsync(new Dictionary<string, string> { ["ISSUER_PORT"] = port.ToString(CultureInfo.InvariantCulture) });

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"127.0.0.1:{port}", run.Error, StringComparison.Ordinal);
        Assert.Contains("run npm start", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    /// <summary>The caller id the script derives: a version-8 UUID from a SHA-256 of the sorted, distinct receiver set.</summary>
    private static string DerivedCaller(params string[] receivers)
    {
        var bytes = SHA256.HashData(Encoding.UTF8.GetBytes("widget-signing local caller\n" + string.Join('\n', receivers.Distinct().Order(StringComparer.Ordinal))))[..16];
        bytes[6] = (byte)((bytes[6] & 0x0f) | 0x80);
        bytes[8] = (byte)((bytes[8] & 0x3f) | 0x80);
        var hex = Convert.ToHexString(bytes).ToLowerInvariant();
        return $"{hex[..8]}-{hex[8..12]}-{hex[12..16]}-{hex[16..20]}-{hex[20..]}";
    }

    private Task<ExternalTool> RunAsync(params string[] arguments) => RunAsync([], arguments);

    private async Task<ExternalTool> RunAsync(Dictionary<string, string> environment, params string[] arguments)
    {
        var start = Node(RepoFiles.File("scripts", "token.mjs"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["ISSUER_PORT"] = _issuer.Port.ToString(CultureInfo.InvariantCulture);
        start.Environment["AZURITE_TABLE_PORT"] = azurite.TableServiceUri.Port.ToString(CultureInfo.InvariantCulture);
        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        return await ExternalTool.RunAsync(start, "node scripts/token.mjs");
    }

    /// <summary>Every grant in Azurite's table, read with the JavaScript Tables SDK (the test project has no Tables client).</summary>
    private async Task<List<Grant>> GrantsAsync()
    {
        var output = await NodeTablesAsync("const all = []; for await (const e of t.listEntities()) all.push({ caller: e.partitionKey, receiver: e.rowKey, grantedBy: e.GrantedBy }); console.log(JSON.stringify(all));");
        return JsonSerializer.Deserialize<List<Grant>>(output, new JsonSerializerOptions(JsonSerializerDefaults.Web))!;
    }

    private async Task<string> NodeTablesAsync(string body)
    {
        var script = "import { TableClient } from '@azure/data-tables';\n"
            + $"const t = TableClient.fromConnectionString(process.env.CONNECTION, '{GrantsTable}', {{ allowInsecureConnection: true }});\n{body}\n";
        var start = Node("--input-type=module", "-e", script);
        start.Environment["CONNECTION"] = azurite.ConnectionString;
        var run = await ExternalTool.RunAsync(start, "node (Tables SDK)");
        Assert.True(run.ExitCode == 0, run.Error);
        return run.Output;
    }

    private static ProcessStartInfo Node(params string[] arguments)
    {
        var start = new ProcessStartInfo("node")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = RepoRoot.Path,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var name in new[] { "ISSUER_PORT", "AZURITE_TABLE_PORT" })
        {
            start.Environment.Remove(name);
        }

        return start;
    }

    private sealed record Grant(string Caller, string Receiver, string GrantedBy);
}
