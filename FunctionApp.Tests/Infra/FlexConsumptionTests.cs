using System.Text.RegularExpressions;
using WidgetSigning.Signing;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// On each parameter file's evaluated deployment (<c>bicep snapshot</c> of main.json with that file): the isolated
/// app on Flex Consumption by default, the in-process app on Elastic Premium, no key anywhere, every storage account
/// without shared keys, the role assignments docs/deploy.md lists, and the app/plan combinations that cannot work refused
/// with their reason.
/// </summary>
public sealed partial class FlexConsumptionTests
{
    private const string FlexFile = "main.flex-consumption.bicepparam";
    private const string ElasticPremiumFile = "main.elastic-premium.bicepparam";

    /// <summary>Built-in role definition ids (the same in every tenant).</summary>
    private static readonly Dictionary<string, string> RoleNames = new(StringComparer.OrdinalIgnoreCase)
    {
        ["4633458b-17de-408a-b874-0445c86b69e6"] = "Key Vault Secrets User",
        ["b7e6dc6d-f1e8-4753-8033-0f276bb0955b"] = "Storage Blob Data Owner",
        ["ba92f5b4-2d11-453d-a403-e96b0029c9fe"] = "Storage Blob Data Contributor",
        ["2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"] = "Storage Blob Data Reader",
        ["0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3"] = "Storage Table Data Contributor",
        ["76199698-9eea-4c19-bc75-cec21354c6b6"] = "Storage Table Data Reader",
        ["974c5e8b-45b9-4653-ba55-5f855dd0fb88"] = "Storage Queue Data Contributor",
        ["19e7f393-937e-4f77-808e-94535e297925"] = "Storage Queue Data Reader",
        ["c6a89b2d-59bc-44d0-9896-0f6e12d7b80a"] = "Storage Queue Data Message Sender",
        ["3913510d-42f4-4e42-8a64-420c390055eb"] = "Monitoring Metrics Publisher",
    };

    /// <summary>Settings only the in-process app needs; none may be on the Flex app (Flex refuses most of them).</summary>
    private static readonly string[] InProcessOnlySettings =
        ["FUNCTIONS_INPROC_NET8_ENABLED", "FUNCTIONS_WORKER_RUNTIME", "FUNCTIONS_EXTENSION_VERSION", "WEBSITE_RUN_FROM_PACKAGE", "WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID"];

    private static CompiledInfra Infra => CompiledInfra.Instance;

    private static DeploymentSnapshot Flex => Infra.Snapshots[FlexFile];

    public static TheoryData<string> ParameterFiles() => CompiledInfra.ParameterFileData();

    [Fact]
    public void ParameterFiles_OnePerSupportedAppAndPlan()
    {
        Assert.Equal([ElasticPremiumFile, FlexFile], CompiledInfra.ParameterFileNames);
        Assert.Equal("isolated", (string?)Infra.ParameterFiles[FlexFile]["parameters"]!["app"]!["value"]);
        Assert.Equal("FC1", (string?)Infra.ParameterFiles[FlexFile]["parameters"]!["planSku"]!["value"]);
        Assert.Equal("inprocess", (string?)Infra.ParameterFiles[ElasticPremiumFile]["parameters"]!["app"]!["value"]);
        Assert.Equal("EP1", (string?)Infra.ParameterFiles[ElasticPremiumFile]["parameters"]!["planSku"]!["value"]);
    }

    [Fact]
    public void Main_Defaults_AreTheIsolatedAppOnFlexConsumption()
    {
        Assert.Equal(["isolated", "inprocess"], Infra.Allowed("app"));
        Assert.Equal("isolated", (string?)Infra.Parameters["app"]!["defaultValue"]);
        Assert.Equal("FC1", (string?)Infra.Parameters["planSku"]!["defaultValue"]);
        Assert.Equal(100, (int)Infra.Parameters["maximumInstanceCount"]!["defaultValue"]!);
        Assert.Equal(2048, (int)Infra.Parameters["instanceMemoryMB"]!["defaultValue"]!);
        Assert.Equal([2048, 4096], Infra.Parameters["instanceMemoryMB"]!["allowedValues"]!.AsArray().Select(v => (int)v!));
        Assert.Equal(0, (int)Infra.Parameters["alwaysReadyHttpInstances"]!["defaultValue"]!);
    }

    [Fact]
    public void FlexFile_DeploysAnFC1PlanAndTheDotnetIsolated10Runtime()
    {
        var plan = Flex.Single("Microsoft.Web/serverfarms");
        var site = Flex.Single("Microsoft.Web/sites");
        var runtime = site["properties"]!["functionAppConfig"]!["runtime"]!;

        Assert.Equal("FC1", (string?)plan["sku"]!["name"]);
        Assert.Equal("FlexConsumption", (string?)plan["sku"]!["tier"]);
        Assert.True((bool)plan["properties"]!["reserved"]!);
        Assert.Equal("functionapp,linux", (string?)site["kind"]);
        Assert.Equal("dotnet-isolated", (string?)runtime["name"]);
        Assert.Equal("10.0", (string?)runtime["version"]);
        Assert.True(string.CompareOrdinal((string?)site["apiVersion"], "2024-04-01") >= 0, $"Microsoft.Web/sites API {(string?)site["apiVersion"]} predates 2024-04-01");
        Assert.Null(site["properties"]!["siteConfig"]!["netFrameworkVersion"]);
    }

    [Fact]
    public void FlexFile_DeploymentStorage_IsTheDeploymentContainer_ByTheUserAssignedIdentity()
    {
        var site = Flex.Single("Microsoft.Web/sites");
        var storage = site["properties"]!["functionAppConfig"]!["deployment"]!["storage"]!;
        var identity = Assert.Single(site["identity"]!["userAssignedIdentities"]!.AsObject()).Key;
        var account = Assert.Single(Flex.OfType("Microsoft.Storage/storageAccounts"), a => ((string)a["name"]!).StartsWith("stp", StringComparison.Ordinal));

        Assert.Equal("blobContainer", (string?)storage["type"]);
        Assert.Equal("UserAssignedIdentity", (string?)storage["authentication"]!["type"]);
        Assert.Equal(identity, (string?)storage["authentication"]!["userAssignedIdentityResourceId"]);
        Assert.Null(storage["authentication"]!["storageAccountConnectionStringName"]);
        Assert.Contains($"/storageAccounts/{(string)account["name"]!}'", (string?)storage["value"], StringComparison.Ordinal);
        Assert.EndsWith("'function-releases')]", (string?)storage["value"], StringComparison.Ordinal);
        Assert.Contains(Flex.OfType("Microsoft.Storage/storageAccounts/blobServices/containers"), c => (string?)c["name"] == $"{(string)account["name"]!}/default/function-releases");
    }

    [Fact]
    public void FlexFile_ScaleAndConcurrency_FollowTheParameters_AlwaysReadyOff()
    {
        var scale = Flex.Single("Microsoft.Web/sites")["properties"]!["functionAppConfig"]!["scaleAndConcurrency"]!;

        Assert.Equal(100, (int)scale["maximumInstanceCount"]!);
        Assert.Equal(2048, (int)scale["instanceMemoryMB"]!);
        Assert.Empty(scale["alwaysReady"]!.AsArray());
    }

    [Fact]
    public void FlexApp_AlwaysReadyAndMemory_AreOptions()
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf("param instanceMemoryMB = 4096\nparam alwaysReadyHttpInstances = 2\nparam maximumInstanceCount = 40");

        Assert.True(snapshot is not null, run.Output + run.Error);
        var scale = snapshot.Single("Microsoft.Web/sites")["properties"]!["functionAppConfig"]!["scaleAndConcurrency"]!;
        Assert.Equal(4096, (int)scale["instanceMemoryMB"]!);
        Assert.Equal(40, (int)scale["maximumInstanceCount"]!);
        var alwaysReady = Assert.Single(scale["alwaysReady"]!.AsArray());
        Assert.Equal("http", (string?)alwaysReady!["name"]);
        Assert.Equal(2, (int)alwaysReady["instanceCount"]!);
    }

    [Theory]
    [InlineData(2048, 1536, 192)]
    [InlineData(4096, 3072, 384)]
    public void MemoryBudget_Default_FollowsTheGrantedInstanceMemory(int instanceMemoryMB, int gcHeapLimitMiB, int budgetMiB)
    {
        // On Linux in a container with a memory limit, .NET's GC heap hard limit (what TotalAvailableMemoryBytes reports)
        // defaults to 75 % of the limit; the budget's default is an eighth of it. No setting: it follows the memory granted.
        const long MiB = 1024 * 1024;

        Assert.Contains(instanceMemoryMB, Infra.Parameters["instanceMemoryMB"]!["allowedValues"]!.AsArray().Select(v => (int)v!));
        Assert.Equal(gcHeapLimitMiB, instanceMemoryMB * 3 / 4);
        Assert.Equal(budgetMiB * MiB, EnvelopeMemoryBudget.DefaultFor(gcHeapLimitMiB * MiB));
        Assert.Equal(instanceMemoryMB / 8 * MiB, EnvelopeMemoryBudget.DefaultFor(instanceMemoryMB * MiB));
        Assert.DoesNotContain(Flex.AppSettings.Keys, k => k.StartsWith("MemoryBudget", StringComparison.Ordinal));
        Assert.Contains($"{budgetMiB} MiB", RepoFiles.ReadAllText("docs", "deploy.md"), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void ParameterFile_Settings_HoldNoKeyNoSasNoInstrumentationKey(string file)
    {
        var snapshot = Infra.Snapshots[file];
        string[] forbidden = ["AccountKey", "SharedAccessSignature", "InstrumentationKey=", "listKeys", "@Microsoft.KeyVault"];

        Assert.All(snapshot.AppSettings, s => Assert.DoesNotContain(forbidden, f => s.Value.Contains(f, StringComparison.OrdinalIgnoreCase) || s.Key.Contains("INSTRUMENTATIONKEY", StringComparison.OrdinalIgnoreCase)));
        Assert.DoesNotContain("AzureWebJobsStorage", snapshot.AppSettings.Keys);
        Assert.DoesNotContain("WidgetStorage", snapshot.AppSettings.Keys);
        Assert.Equal("managedidentity", snapshot.AppSettings["AzureWebJobsStorage__credential"]);
        Assert.Equal("managedidentity", snapshot.AppSettings["WidgetStorage__credential"]);
        Assert.Equal(snapshot.AppSettings["AzureWebJobsStorage__clientId"], snapshot.AppSettings["WidgetStorage__clientId"]);
        // Application Insights by Entra: the component refuses local auth; the app authenticates as its identity.
        var clientId = snapshot.AppSettings["AzureWebJobsStorage__clientId"];
        Assert.Matches(@"^\[reference\('[^']+/userAssignedIdentities/id-[^']+', '[^']+'\)\.clientId\]$", clientId);
        Assert.Equal($"[format('ClientId={{0}};Authorization=AAD', {clientId[1..^1]})]", snapshot.AppSettings["APPLICATIONINSIGHTS_AUTHENTICATION_STRING"]);
        Assert.True((bool)snapshot.Single("Microsoft.Insights/components")["properties"]!["DisableLocalAuth"]!);
        Assert.DoesNotContain(snapshot.OfType("Microsoft.KeyVault/vaults/secrets"), _ => true);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void ParameterFile_Telemetry_NamesTheServiceAndAddsNoOtherApplicationInsightsSetting(string file)
    {
        var settings = Infra.Snapshots[file].AppSettings;

        // The OpenTelemetry SDK reads OTEL_SERVICE_NAME: every span, metric and log carries it as service.name.
        Assert.Equal("widget-signing", settings["OTEL_SERVICE_NAME"]);
        Assert.Equal(
            ["APPLICATIONINSIGHTS_AUTHENTICATION_STRING", "APPLICATIONINSIGHTS_CONNECTION_STRING"],
            settings.Keys.Where(k => k.Contains("APPLICATIONINSIGHTS", StringComparison.OrdinalIgnoreCase) || k.Contains("INSTRUMENTATION", StringComparison.OrdinalIgnoreCase)).Order(StringComparer.Ordinal));
        Assert.DoesNotContain(settings.Keys, k => k.StartsWith("OTEL_", StringComparison.Ordinal) && k != "OTEL_SERVICE_NAME");
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void ParameterFile_EveryStorageAccount_AllowsNoSharedKey(string file)
    {
        var accounts = Infra.Snapshots[file].OfType("Microsoft.Storage/storageAccounts");

        Assert.Equal(["data", "deployment", "host"], accounts.Select(a => AccountKind((string)a["name"]!)).Order(StringComparer.Ordinal));
        Assert.All(accounts, a =>
        {
            Assert.False((bool)a["properties"]!["allowSharedKeyAccess"]!, $"{(string?)a["name"]} allows shared keys");
            Assert.False((bool)a["properties"]!["allowBlobPublicAccess"]!);
        });
    }

    [Fact]
    public void FlexFile_AppSettings_HaveNoInProcessSetting_AndHostStorageByServiceUris()
    {
        var settings = Flex.AppSettings;

        Assert.DoesNotContain(settings.Keys, k => InProcessOnlySettings.Contains(k, StringComparer.OrdinalIgnoreCase) || k.StartsWith("WEBSITE_RUN_FROM_PACKAGE", StringComparison.Ordinal) || k.StartsWith("WEBSITE_CONTENT", StringComparison.Ordinal));
        Assert.DoesNotContain(settings.Values, v => v == "dotnet");
        foreach (var service in new[] { "blob", "queue", "table" })
        {
            Assert.EndsWith($".primaryEndpoints.{service}]", settings[$"AzureWebJobsStorage__{service}ServiceUri"], StringComparison.Ordinal);
            Assert.Contains("/storageAccounts/sth", settings[$"AzureWebJobsStorage__{service}ServiceUri"], StringComparison.Ordinal);
        }

        Assert.Contains("/storageAccounts/std", settings["WidgetStorage__queueServiceUri"], StringComparison.Ordinal);
        Assert.Contains("/storageAccounts/std", settings["WidgetStorage__blobServiceUri"], StringComparison.Ordinal);
    }

    [Fact]
    public void FlexFile_Gen0Budget_IsTheIsolatedSamplesAndAHexNumberTheRuntimeReads()
    {
        // The runtime reads GCgen0size from the environment only (a runtimeconfig property is ignored), as hex.
        var sample = System.Text.Json.Nodes.JsonNode.Parse(RepoFiles.ReadAllText("FunctionApp.Isolated", "local.settings.sample.json"))!["Values"]!;

        var value = Flex.AppSettings["DOTNET_GCgen0size"];

        Assert.Equal((string?)sample["DOTNET_GCgen0size"], value);
        Assert.Equal(64L * 1024 * 1024, Convert.ToInt64(value, 16));
        Assert.Contains("DOTNET_GCgen0size=0x4000000", RepoFiles.ReadAllText("docs", "operations.md"), StringComparison.Ordinal);
    }

    [Fact]
    public void ElasticPremiumFile_KeepsTheInProcessAppAndItsSettings()
    {
        var snapshot = Infra.Snapshots[ElasticPremiumFile];
        var site = snapshot.Single("Microsoft.Web/sites");

        Assert.Equal("EP1", (string?)snapshot.Single("Microsoft.Web/serverfarms")["sku"]!["name"]);
        Assert.Equal("v8.0", (string?)site["properties"]!["siteConfig"]!["netFrameworkVersion"]);
        Assert.Null(site["properties"]!["functionAppConfig"]);
        Assert.Equal("dotnet", snapshot.AppSettings["FUNCTIONS_WORKER_RUNTIME"]);
        Assert.Equal("1", snapshot.AppSettings["FUNCTIONS_INPROC_NET8_ENABLED"]);
        Assert.Contains("/storageAccounts/stp", snapshot.AppSettings["WEBSITE_RUN_FROM_PACKAGE"], StringComparison.Ordinal);
    }

    [Fact]
    public void FlexFile_AppSettings_CoverEverySettingTheIsolatedAppReads()
    {
        // Parity: every option without a default is set (the development key never); every option the template sets is
        // one the app binds; every setting the app reads and the template leaves out is documented with its default.
        var settings = Flex.AppSettings;
        var operations = RepoFiles.ReadAllText("docs", "operations.md");

        // Auth:Authority is the local issuer's, refused in Azure: never set there, like the development key.
        Assert.All(AppOptionsCatalog.Defaults.Where(d => d.Value is null && !d.Key.StartsWith("Signing:LocalKey", StringComparison.OrdinalIgnoreCase) && d.Key != "Audit:LocalSigningKey" && d.Key != "Auth:Authority"),
            d => Assert.True(settings.ContainsKey(d.Key.Replace(":", "__", StringComparison.Ordinal)), $"the Flex app does not set {d.Key}, which has no default"));
        Assert.All(settings.Keys.Where(k => AppOptionsCatalog.InSection(k, out _)), k =>
        {
            Assert.True(AppOptionsCatalog.InSection(k, out var known) && known, $"the Flex app sets {k}, which no options class reads");
        });
        Assert.All(AppOptionsCatalog.Defaults.Keys.Where(k => !settings.ContainsKey(k.Replace(":", "__", StringComparison.Ordinal))),
            k => Assert.Contains($"| `{k}` |", operations, StringComparison.OrdinalIgnoreCase));
        Assert.Equal("16908288", settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"]);

        // No host throttle for the isolated app: slow uploads would hold its slots (docs/security.md).
        Assert.DoesNotContain(settings.Keys, k => k.StartsWith("AzureFunctionsJobHost__extensions__http__max", StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void ParameterFile_RoleAssignments_AreScopedAsDeployMdSays(string file)
    {
        var app = (string)Infra.ParameterFiles[file]["parameters"]!["app"]!["value"]!;
        var expected = DocumentedGrants(app).Where(g => g.Who != "pipeline smoke connection").Select(g => $"{g.Who} | {g.Role} | {g.Scope}");

        var actual = Infra.Snapshots[file].RoleAssignments.Select(a => $"{Who(a.Principal)} | {RoleNames[a.RoleId]} | {Scope(a.Scope)}");

        Assert.Equal(expected.Order(StringComparer.Ordinal), actual.Order(StringComparer.Ordinal));
    }

    [Theory]
    [InlineData("isolated")]
    [InlineData("inprocess")]
    public void SmokePrincipal_GetsOnlyTheGrantsDeployMdLists(string app)
    {
        var plan = app == "isolated" ? "FC1" : "EP1";
        var (run, snapshot) = CompiledInfra.SnapshotOf($"param app = '{app}'\nparam planSku = '{plan}'\nparam smokeTestPrincipalId = '66666666-7777-8888-9999-000000000000'");

        Assert.True(snapshot is not null, run.Output + run.Error);
        var smoke = snapshot.RoleAssignments.Where(a => a.Principal == "66666666-7777-8888-9999-000000000000").Select(a => $"{RoleNames[a.RoleId]} | {Scope(a.Scope)}");
        var expected = DocumentedGrants(app).Where(g => g.Who == "pipeline smoke connection").Select(g => $"{g.Role} | {g.Scope}");
        Assert.Equal(expected.Order(StringComparer.Ordinal), smoke.Order(StringComparer.Ordinal));
    }

    [Theory]
    [InlineData("inprocess", "FC1", "app=inprocess cannot run on Flex Consumption (FC1)")]
    [InlineData("inprocess", "Y1", "app=inprocess cannot use Consumption (Y1)")]
    [InlineData("isolated", "Y1", "app=isolated cannot use Consumption (Y1)")]
    [InlineData("isolated", "EP1", "app=isolated deploys on Flex Consumption (FC1) only")]
    public void Combination_ThatCannotWork_IsRefusedWithItsReason(string app, string plan, string reason)
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf($"param app = '{app}'\nparam planSku = '{plan}'");

        Assert.Null(snapshot);
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains(reason, run.Output + run.Error, StringComparison.Ordinal);
        Assert.Contains(reason, RepoFiles.ReadAllText("docs", "deploy.md"), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("isolated", "FC1")]
    [InlineData("inprocess", "EP1")]
    [InlineData("inprocess", "EP2")]
    [InlineData("inprocess", "EP3")]
    public void Combination_ThatWorks_Deploys(string app, string plan)
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf($"param app = '{app}'\nparam planSku = '{plan}'");

        Assert.True(snapshot is not null, run.Output + run.Error);
        Assert.Equal(plan, (string?)snapshot.Single("Microsoft.Web/serverfarms")["sku"]!["name"]);
    }

    /// <summary>The grants table in docs/deploy.md ("Role assignments"): rows for <paramref name="app"/> or both apps.</summary>
    private static IReadOnlyList<(string Who, string Role, string Scope)> DocumentedGrants(string app)
    {
        var rows = RepoFiles.ReadAllText("docs", "deploy.md").Split('\n')
            .Select(l => GrantRow().Match(l))
            .Where(m => m.Success)
            .Select(m => (Who: m.Groups[1].Value.Trim(), Role: m.Groups[2].Value.Replace("**", string.Empty, StringComparison.Ordinal).Replace(" with a condition", string.Empty, StringComparison.Ordinal).Trim(), Scopes: m.Groups[3].Value, Apps: m.Groups[4].Value.Trim()))
            .Where(r => r.Apps == "both" || r.Apps == app)
            .SelectMany(r => r.Scopes.Split(',').Select(s => (r.Who, r.Role, Scope: s.Replace("`", string.Empty, StringComparison.Ordinal).Replace("**", string.Empty, StringComparison.Ordinal).Trim())))
            .ToList();
        Assert.NotEmpty(rows);
        return rows;
    }

    private static string Who(string principal) =>
        principal.Contains("/userAssignedIdentities/id-", StringComparison.Ordinal) ? "app identity"
        : principal.Contains("deployer()", StringComparison.Ordinal) ? "pipeline deploy connection"
        : "pipeline smoke connection";

    /// <summary>A scope's id in the words of docs/deploy.md's table: "host account", "queue widget-envelopes", ….</summary>
    private static string Scope(string id)
    {
        var parts = id.Split('/');
        var type = parts[^2];
        var name = parts[^1];
        return type switch
        {
            "storageAccounts" => $"{AccountKind(name)} account",
            "queues" => $"queue {name}",
            "containers" => $"container {name}",
            "tables" => $"table {name}",
            "secrets" => $"secret {name}",
            "components" => "Application Insights component",
            _ => id,
        };
    }

    private static string AccountKind(string name) => name[..3] switch
    {
        "sth" => "host",
        "stp" => "deployment",
        "std" => "data",
        _ => name,
    };

    [GeneratedRegex(@"^\| (app identity|pipeline deploy connection|pipeline smoke connection) \| ([^|]+) \| ([^|]+) \| (both|isolated|inprocess) \|")]
    private static partial Regex GrantRow();
}
