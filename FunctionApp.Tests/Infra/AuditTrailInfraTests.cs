using System.Text.Json.Nodes;
using System.Text.RegularExpressions;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// The audit trail's storage in the compiled template: the widget-audit container in the data account, its
/// container-level time-based immutability policy (protected append writes, the retention parameter, locked in
/// production by the pipeline), the app's append-only grant on that container alone, its read grant on the audit seal
/// key alone, the optional auditor's read grant, and the app settings that point the app at both.
/// </summary>
public sealed partial class AuditTrailInfraTests
{
    private const string ContainerType = "Microsoft.Storage/storageAccounts/blobServices/containers";
    private const string PolicyType = "Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies";
    private const string Blobs = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/";
    private const string StorageBlobDataContributor = "ba92f5b4-2d11-453d-a403-e96b0029c9fe";
    private const string StorageBlobDataReader = "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1";
    private const string KeyVaultSecretsUser = "4633458b-17de-408a-b874-0445c86b69e6";
    private const string AuditContainerScope = "[resourceId('Microsoft.Storage/storageAccounts/blobServices/containers', parameters('dataStorageAccountName'), 'default', parameters('containerNames').audit)]";

    /// <summary>
    /// Storage Blob Data Contributor's data actions (Microsoft Learn, "Azure built-in roles for Storage"): what a
    /// condition on it can take away from.
    /// </summary>
    private static readonly string[] ContributorDataActions =
        [Blobs + "delete", Blobs + "read", Blobs + "write", Blobs + "move/action", Blobs + "add/action"];

    private static CompiledInfra Infra => CompiledInfra.Instance;

    private static JsonObject StorageTemplate => CompiledInfra.Template(Infra.Module("storage"));

    private static JsonObject RoleTemplate => CompiledInfra.Template(Infra.Module("roleAssignments"));

    [Fact]
    public void AuditContainer_InTheDataAccount_IsCreatedPrivateWithTheParametersName()
    {
        var container = Assert.Single(CompiledInfra.Resources(Infra.Module("storage")), r => (string?)r["type"] == ContainerType && ((string)r["name"]!).Contains("auditContainerName", StringComparison.Ordinal));

        Assert.Equal("[format('{0}/{1}/{2}', parameters('dataStorageAccountName'), 'default', parameters('auditContainerName'))]", (string?)container["name"]);
        Assert.Equal("None", (string?)container["properties"]!["publicAccess"]);
        Assert.Equal("widget-audit", (string?)Infra.Parameters["auditContainerName"]!["defaultValue"]);
        Assert.Equal("[parameters('auditContainerName')]", (string?)Infra.Module("storage")["properties"]!["parameters"]!["auditContainerName"]!["value"]);
        Assert.Contains("auditContainerName", StorageTemplate["outputs"]!["containerNames"]!["value"]!["audit"]!.ToJsonString(), StringComparison.Ordinal);
    }

    [Fact]
    public void ImmutabilityPolicy_OfTheAuditContainer_AllowsProtectedAppendsForTheRetentionParameter()
    {
        var policy = Infra.Resource("storage", PolicyType);
        var properties = policy["properties"]!.AsObject();

        Assert.Equal("[format('{0}/{1}/{2}/{3}', parameters('dataStorageAccountName'), 'default', parameters('auditContainerName'), 'default')]", (string?)policy["name"]);
        Assert.True((bool)properties["allowProtectedAppendWrites"]!);
        // Protected appends for append blobs only: block blobs (anchors, keys) are written once and never appended to.
        Assert.False(properties.ContainsKey("allowProtectedAppendWritesAll"));
        Assert.Equal("[parameters('auditRetentionDays')]", (string?)properties["immutabilityPeriodSinceCreationInDays"]);
        Assert.Equal(["allowProtectedAppendWrites", "immutabilityPeriodSinceCreationInDays"], properties.Select(p => p.Key).Order(StringComparer.Ordinal));
        Assert.Equal("[parameters('auditRetentionDays')]", (string?)Infra.Module("storage")["properties"]!["parameters"]!["auditRetentionDays"]!["value"]);
    }

    [Fact]
    public void AuditRetentionDays_Parameter_DefaultsToAYear_WithinTheServicesRange_AndSaysWhy()
    {
        var parameter = Infra.Parameters["auditRetentionDays"]!;

        Assert.Equal("int", (string?)parameter["type"]);
        Assert.Equal(365, (int)parameter["defaultValue"]!);
        Assert.Equal(1, (int)parameter["minValue"]!);
        // The service's longest time-based retention: 146,000 days (400 years).
        Assert.Equal(146000, (int)parameter["maxValue"]!);
        var description = (string)parameter["metadata"]!["description"]!;
        Assert.Contains("Default 365", description, StringComparison.Ordinal);
        Assert.Contains("append", description, StringComparison.Ordinal);
    }

    [Fact]
    public void ImmutabilityPolicy_LockedInAzureAlready_IsLeftOutOfTheDeployment()
    {
        var policy = Infra.Resource("storage", PolicyType);

        // Resource Manager's create-or-update applies only to an unlocked policy: the Plan reports a locked one.
        Assert.Equal("[not(parameters('auditPolicyIsLocked'))]", (string?)policy["condition"]);
        Assert.False((bool)Infra.Parameters["auditPolicyIsLocked"]!["defaultValue"]!);
        var (run, snapshot) = CompiledInfra.SnapshotOf("param auditPolicyIsLocked = true");
        Assert.True(snapshot is not null, run.Error);
        Assert.Empty(snapshot!.OfType(PolicyType));
        Assert.Single(snapshot.OfType(ContainerType), c => ((string)c["name"]!).EndsWith("/widget-audit", StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(CompiledInfra.ParameterFileData), MemberType = typeof(CompiledInfra))]
    public void ParameterFile_Production_LocksTheAuditPolicy_AndDeploysItUnlockedFirst(string file)
    {
        var parameters = Infra.ParameterFiles[file]["parameters"]!;
        var policy = Assert.Single(Infra.Snapshots[file].OfType(PolicyType));

        // Both files are production's (environmentName prod); the pipeline writes false over the lock for other targets.
        Assert.Equal("prod", (string?)parameters["environmentName"]!["value"]);
        Assert.True((bool)parameters["auditPolicyLocked"]!["value"]!);
        Assert.Equal(365, (int)parameters["auditRetentionDays"]!["value"]!);
        Assert.Equal(365, (int)policy["properties"]!["immutabilityPeriodSinceCreationInDays"]!);
        Assert.True((bool)policy["properties"]!["allowProtectedAppendWrites"]!);
        Assert.False((bool)Infra.Parameters["auditPolicyLocked"]!["defaultValue"]!);
    }

    [Fact]
    public void DataAccount_ForContainerLevelWorm_EnablesNoVersionLevelImmutabilityVersioningOrPointInTimeRestore()
    {
        // Container-level WORM needs no versioning and is incompatible with point-in-time restore and last access
        // tracking (Microsoft Learn, "Store business-critical blob data with immutable storage").
        var accounts = CompiledInfra.Resources(Infra.Module("storage")).Where(r => (string?)r["type"] == "Microsoft.Storage/storageAccounts").ToList();
        var blobServices = CompiledInfra.Resources(Infra.Module("storage")).Where(r => (string?)r["type"] == "Microsoft.Storage/storageAccounts/blobServices").ToList();

        Assert.Equal(3, accounts.Count);
        Assert.All(accounts, a => Assert.Equal("[variables('accountProperties')]", (string?)a["properties"]));
        Assert.Null(StorageTemplate["variables"]!["accountProperties"]!["immutableStorageWithVersioning"]);
        Assert.All(blobServices, b =>
        {
            var properties = b["properties"]?.AsObject();
            Assert.Null(properties?["isVersioningEnabled"]);
            Assert.Null(properties?["restorePolicy"]);
            Assert.Null(properties?["lastAccessTimeTrackingPolicy"]);
        });
        Assert.DoesNotContain("immutableStorageWithVersioning", Infra.Main.ToJsonString(), StringComparison.Ordinal);
    }

    [Fact]
    public void AppAuditGrant_OnTheAuditContainerOnly_LeavesExactlyReadAndAdd_NoOverwriteDeleteOrRename()
    {
        var grant = Assert.Single(Assignments(), a => (string?)a["scope"] == AuditContainerScope && (string?)a["properties"]!["principalId"] == "[parameters('principalId')]");
        var properties = grant["properties"]!;

        Assert.Equal(StorageBlobDataContributor, RoleId(grant));
        Assert.Equal("ServicePrincipal", (string?)properties["principalType"]);
        Assert.Equal("[variables('appendOnlyCondition')]", (string?)properties["condition"]);
        Assert.Equal("2.0", (string?)properties["conditionVersion"]);
        var condition = (string)RoleTemplate["variables"]!["appendOnlyCondition"]!;
        Assert.Equal("((!(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write'})) AND (!(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete'})) AND (!(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/move/action'})))", condition);

        // What the condition leaves of the role: Put Blob of a new blob and Append Block need blobs/add/action; Get Blob,
        // Get Blob Properties and List Blobs need blobs/read (Microsoft Learn, "Authorize with Microsoft Entra ID").
        var denied = DeniedActions().Matches(condition).Select(m => m.Groups[1].Value).ToHashSet(StringComparer.Ordinal);
        var effective = ContributorDataActions.Where(a => !denied.Contains(a)).Order(StringComparer.Ordinal).ToList();
        Assert.Equal([Blobs + "add/action", Blobs + "read"], effective);
        Assert.DoesNotContain(effective, a => a.Contains("delete", StringComparison.OrdinalIgnoreCase) || a.EndsWith("/write", StringComparison.Ordinal));
        Assert.Contains("this container only", (string?)properties["description"], StringComparison.Ordinal);
    }

    [Fact]
    public void AppStorageGrants_InTheDataAccount_AreAllScopedBelowTheAccount_SoNoneReachesTheAuditContainer()
    {
        // Only a grant on the account or its blob service would also cover widget-audit; every data-account grant of the
        // app is on one container, queue or table.
        var app = Assignments().Where(a => (string?)a["properties"]!["principalId"] == "[parameters('principalId')]").ToList();
        var dataAccount = app.Where(a => ((string)a["scope"]!).Contains("parameters('dataStorageAccountName')", StringComparison.Ordinal)).ToList();

        Assert.NotEmpty(dataAccount);
        Assert.All(dataAccount, a => Assert.Matches(@"^\[resourceId\('Microsoft\.Storage/storageAccounts/(blobServices/containers|queueServices/queues|tableServices/tables)', ", (string)a["scope"]!));
        Assert.Single(dataAccount, a => (string?)a["scope"] == AuditContainerScope);
    }

    [Fact]
    public void AuditKeyGrant_IsScopedToTheAuditSecretOnly_AndMadeOnceTheKeyExists()
    {
        var grant = Assert.Single(Assignments(), a => ((string?)a["scope"])?.Contains("auditSigningSecretName", StringComparison.Ordinal) == true);

        Assert.Equal(KeyVaultSecretsUser, RoleId(grant));
        Assert.Equal("[resourceId('Microsoft.KeyVault/vaults/secrets', parameters('keyVaultName'), parameters('auditSigningSecretName'))]", (string?)grant["scope"]);
        Assert.Equal("[parameters('principalId')]", (string?)grant["properties"]!["principalId"]);
        Assert.Equal("[parameters('auditSigningKeyExists')]", (string?)grant["condition"]);
        var passed = Infra.Module("roleAssignments")["properties"]!["parameters"]!;
        Assert.Equal("[parameters('auditSigningKeyExists')]", (string?)passed["auditSigningKeyExists"]!["value"]);
        Assert.Equal("[parameters('auditSigningSecretName')]", (string?)passed["auditSigningSecretName"]!["value"]);
        Assert.Equal("audit-signing-key", (string?)Infra.Parameters["auditSigningSecretName"]!["defaultValue"]);
        Assert.True((bool)Infra.Parameters["auditSigningKeyExists"]!["defaultValue"]!);
    }

    [Fact]
    public void AuditReader_GivenAPrincipal_GetsBlobDataReaderOnTheAuditContainerOnly_EmptyMeansNone()
    {
        var reader = Assert.Single(Assignments(), a => (string?)a["properties"]!["principalId"] == "[parameters('auditReaderPrincipalId')]");

        Assert.Equal(StorageBlobDataReader, RoleId(reader));
        Assert.Equal(AuditContainerScope, (string?)reader["scope"]);
        Assert.Equal("[variables('grantAuditReader')]", (string?)reader["condition"]);
        Assert.Equal("[not(empty(parameters('auditReaderPrincipalId')))]", (string?)RoleTemplate["variables"]!["grantAuditReader"]);
        Assert.Equal(string.Empty, (string?)Infra.Parameters["auditReaderPrincipalId"]!["defaultValue"]);
        // A group or a user, so no principalType.
        Assert.Null(reader["properties"]!["principalType"]);
        Assert.All(Infra.Snapshots.Values, s => Assert.DoesNotContain(s.RoleAssignments, a => a.RoleId == StorageBlobDataReader && a.Scope.EndsWith("/widget-audit", StringComparison.Ordinal)));
    }

    [Fact]
    public void AppSettings_InProcessApp_NameTheAuditContainerAndTheSealKeySecret()
    {
        Assert.Equal("widget-audit", Infra.AppSettings["Audit__Container"]);
        Assert.Equal("audit-signing-key", Infra.AppSettings["Audit__SigningKeySecretName"]);
        // The seal key comes from the same vault, with the same identity, as the signing key.
        Assert.Contains("KeyVault__VaultUri", Infra.AppSettings.Keys);
        Assert.Contains("KeyVault__ManagedIdentityClientId", Infra.AppSettings.Keys);
    }

    [Theory]
    [MemberData(nameof(CompiledInfra.ParameterFileData), MemberType = typeof(CompiledInfra))]
    public void AppSettings_OfEachDeployedApp_NameTheAuditContainerAndTheSealKeySecret(string file)
    {
        var settings = Infra.Snapshots[file].AppSettings;

        Assert.Equal("widget-audit", settings["Audit__Container"]);
        Assert.Equal("audit-signing-key", settings["Audit__SigningKeySecretName"]);
    }

    [Fact]
    public void Outputs_ForTheAuditTrail_AreNamesDaysAndTheLockFlag_NoSecret()
    {
        var outputs = Infra.Main["outputs"]!.AsObject();

        Assert.Equal("string", (string?)outputs["auditSigningSecretName"]!["type"]);
        Assert.Equal("string", (string?)outputs["auditContainerName"]!["type"]);
        Assert.Equal("int", (string?)outputs["auditRetentionDays"]!["type"]);
        Assert.Equal("bool", (string?)outputs["auditPolicyLocked"]!["type"]);
        Assert.All(outputs.Where(o => o.Key.StartsWith("audit", StringComparison.Ordinal)), o =>
        {
            Assert.DoesNotContain("listKeys", o.Value!.ToJsonString(), StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain("secure", (string?)o.Value!["type"], StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain("secrets", o.Value!.ToJsonString(), StringComparison.OrdinalIgnoreCase);
        });
    }

    private static List<JsonObject> Assignments() =>
        Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments").Select(a => a.Resource).ToList();

    private static string RoleId(JsonObject assignment)
    {
        var match = Regex.Match((string)assignment["properties"]!["roleDefinitionId"]!, @"variables\('roleIds'\)\.(\w+)");
        Assert.True(match.Success);
        return (string)RoleTemplate["variables"]!["roleIds"]![match.Groups[1].Value]!;
    }

    [GeneratedRegex(@"!\(ActionMatches\{'([^']+)'\}\)")]
    private static partial Regex DeniedActions();
}
