namespace FunctionApp.Tests.Infra;

/// <summary>
/// Entra callers on each parameter file's evaluated deployment: the platform's built-in authentication as the first gate
/// (a token for this app registration or 401, no secret), the app's Auth settings, and the callers' grants table, which
/// the app may only read.
/// </summary>
public sealed class CallerAuthTests
{
    private const string StorageTableDataReader = "76199698-9eea-4c19-bc75-cec21354c6b6";
    private const string StorageTableDataContributor = "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3";

    private static CompiledInfra Infra => CompiledInfra.Instance;

    public static TheoryData<string> ParameterFiles() => CompiledInfra.ParameterFileData();

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void PlatformAuth_RequiresAnEntraTokenForTheAppRegistration_Returns401_WithoutASecret(string file)
    {
        var snapshot = Infra.Snapshots[file];

        var auth = Assert.Single(snapshot.OfType("Microsoft.Web/sites/config"), c => ((string)c["name"]!).EndsWith("/authsettingsV2", StringComparison.Ordinal))["properties"]!;
        Assert.True((bool)auth["platform"]!["enabled"]!);
        Assert.True((bool)auth["globalValidation"]!["requireAuthentication"]!);
        Assert.Equal("Return401", (string?)auth["globalValidation"]!["unauthenticatedClientAction"]);
        Assert.Equal(["/api/receivers/*"], auth["globalValidation"]!["excludedPaths"]!.AsArray().Select(p => (string)p!));
        Assert.True((bool)auth["httpSettings"]!["requireHttps"]!);
        Assert.False((bool)auth["login"]!["tokenStore"]!["enabled"]!);
        var entra = auth["identityProviders"]!["azureActiveDirectory"]!;
        Assert.True((bool)entra["enabled"]!);
        Assert.Equal(CompiledInfra.SnapshotAuthClientId, (string?)entra["registration"]!["clientId"]);
        Assert.Equal("[format('{0}{1}/v2.0', environment().authentication.loginEndpoint, '00000000-0000-0000-0000-000000000002')]", (string?)entra["registration"]!["openIdIssuer"]);
        Assert.Equal([CompiledInfra.SnapshotAuthClientId], entra["validation"]!["allowedAudiences"]!.AsArray().Select(a => (string)a!));
        // Validation only: no secret setting, no secret, no certificate.
        Assert.Null(entra["registration"]!["clientSecretSettingName"]);
        Assert.Null(entra["registration"]!["clientSecretCertificateThumbprint"]);
        Assert.DoesNotContain("secret", auth.ToJsonString(), StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(snapshot.AppSettings.Keys, k => k.Contains("PROVIDER_AUTHENTICATION_SECRET", StringComparison.OrdinalIgnoreCase));
    }

    [Theory]
    [InlineData("main.elastic-premium.bicepparam", "inprocess", "true")]
    [InlineData("main.flex-consumption.bicepparam", "isolated", null)]
    public void PlatformAuthentication_IsTurnedOnOnlyForTheInProcessApp_BehindTheV2IssuerAndTheAudiences(string file, string app, string? platformAuthentication)
    {
        // Arrange
        var snapshot = Infra.Snapshots[file];

        // Act
        var auth = Assert.Single(snapshot.OfType("Microsoft.Web/sites/config"), c => ((string)c["name"]!).EndsWith("/authsettingsV2", StringComparison.Ordinal))["properties"]!;
        snapshot.AppSettings.TryGetValue("Auth__PlatformAuthentication", out var setting);

        // Assert: the in-process app reads the platform's principal (it cannot validate tokens), and only behind the
        // platform's authentication; the isolated app validates tokens itself and never sets the trust.
        Assert.Equal(app, (string?)Infra.ParameterFiles[file]["parameters"]!["app"]!["value"]);
        Assert.Equal(platformAuthentication, setting);
        Assert.True((bool)auth["platform"]!["enabled"]!);
        Assert.True((bool)auth["globalValidation"]!["requireAuthentication"]!);
        Assert.Equal("Return401", (string?)auth["globalValidation"]!["unauthenticatedClientAction"]);
        var entra = auth["identityProviders"]!["azureActiveDirectory"]!;
        Assert.EndsWith("'00000000-0000-0000-0000-000000000002')]", (string?)entra["registration"]!["openIdIssuer"], StringComparison.Ordinal);
        Assert.StartsWith("[format('{0}{1}/v2.0'", (string?)entra["registration"]!["openIdIssuer"], StringComparison.Ordinal);
        Assert.Equal([snapshot.AppSettings["Auth__Audience"]], entra["validation"]!["allowedAudiences"]!.AsArray().Select(a => (string)a!));
        Assert.Null(entra["registration"]!["clientSecretSettingName"]);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void AuthSettings_NameTheTenantAndTheAppRegistration(string file)
    {
        var settings = Infra.Snapshots[file].AppSettings;

        // The deployment's tenant by default (the snapshot's), the client id lower-cased as the tokens carry it.
        Assert.Equal("00000000-0000-0000-0000-000000000002", settings["Auth__TenantId"]);
        Assert.Equal(CompiledInfra.SnapshotAuthClientId, settings["Auth__Audience"]);
        Assert.Equal(string.Empty, settings["Auth__AppIdUri"]);
        Assert.Equal(string.Empty, settings["Queues__AllowedReceivers"]);
        Assert.Equal("[tenant().tenantId]", (string?)Infra.Parameters["authTenantId"]!["defaultValue"]);
    }

    [Fact]
    public void AuthAppIdUri_WhenSet_IsASecondAudience_ForThePlatformAndTheApp()
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf("param authClientId = '7A1E0000-0000-4000-8000-0000000000AB'\nparam authAppIdUri = 'api://widget-signing'\nparam authTenantId = '7a1e0000-0000-4000-8000-000000000001'\nparam queueAllowedReceivers = 'partner-a,partner-b'");

        Assert.True(snapshot is not null, run.Output + run.Error);
        var entra = Assert.Single(snapshot.OfType("Microsoft.Web/sites/config"))["properties"]!["identityProviders"]!["azureActiveDirectory"]!;
        Assert.Equal(["7a1e0000-0000-4000-8000-0000000000ab", "api://widget-signing"], entra["validation"]!["allowedAudiences"]!.AsArray().Select(a => (string)a!));
        Assert.Contains("'7a1e0000-0000-4000-8000-000000000001')]", (string?)entra["registration"]!["openIdIssuer"], StringComparison.Ordinal);
        Assert.Equal("api://widget-signing", snapshot.AppSettings["Auth__AppIdUri"]);
        Assert.Equal("7a1e0000-0000-4000-8000-0000000000ab", snapshot.AppSettings["Auth__Audience"]);
        Assert.Equal("7a1e0000-0000-4000-8000-000000000001", snapshot.AppSettings["Auth__TenantId"]);
        Assert.Equal("partner-a,partner-b", snapshot.AppSettings["Queues__AllowedReceivers"]);
    }

    [Theory]
    [InlineData("param authClientId = ''", "authClientId is required")]
    [InlineData("param authClientId = 'widget-signing'", "authClientId must be the app registration's client id, a GUID")]
    [InlineData("param authClientId = 'api://7a1e0000-0000-4000-8000-000000000002'", "authClientId must be the app registration's client id, a GUID")]
    public void AuthClientId_MissingOrNotAGuid_IsRefusedWithItsReason(string parameter, string reason)
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf(parameter);

        Assert.Null(snapshot);
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains(reason, run.Output + run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void GrantsTable_IsOnTheDataAccount_AndTheAppOnlyReadsThatTable(string file)
    {
        var snapshot = Infra.Snapshots[file];

        var table = (string)Assert.Single(snapshot.OfType("Microsoft.Storage/storageAccounts/tableServices/tables"))["name"]!;
        Assert.Matches("^std[a-z0-9]+/default/callergrants$", table);
        var account = table.Split('/')[0];
        var reader = Assert.Single(snapshot.RoleAssignments, a => a.RoleId == StorageTableDataReader);
        Assert.EndsWith($"/storageAccounts/{account}/tableServices/default/tables/callergrants", reader.Scope, StringComparison.Ordinal);
        Assert.Contains("/userAssignedIdentities/id-", reader.Principal, StringComparison.Ordinal);
        // No write role on any table of the data account: a compromised app cannot grant a caller a receiver.
        Assert.DoesNotContain(snapshot.RoleAssignments, a => a.RoleId == StorageTableDataContributor && a.Scope.Contains($"/storageAccounts/{account}", StringComparison.Ordinal));
        Assert.Equal($"[reference('/subscriptions/{CompiledInfra.SnapshotSubscription}/resourceGroups/{CompiledInfra.SnapshotResourceGroup}/providers/Microsoft.Storage/storageAccounts/{account}', '2026-06-01').primaryEndpoints.table]", snapshot.AppSettings["WidgetStorage__tableServiceUri"]);
    }

    [Fact]
    public void GrantsTable_IsTheGrantsOptionsDefault_AndTheScriptsTable()
    {
        Assert.Equal("callergrants", (string?)Infra.Main["variables"]!["grantsTableName"]);
        Assert.Contains("--table-name callergrants", RepoFiles.ReadAllText("infra", "scripts", "caller-grant.sh"), StringComparison.Ordinal);
        Assert.True(Infra.Main["outputs"]!.AsObject().ContainsKey("grantsTableName"));
    }
}
