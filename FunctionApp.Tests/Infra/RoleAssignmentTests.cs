using System.Text.Json.Nodes;

namespace FunctionApp.Tests.Infra;

/// <summary>Role assignments in the compiled template: built-in role ids, narrow scopes, explicit principal types.</summary>
public sealed class RoleAssignmentTests
{
    /// <summary>Built-in role definition ids (the same in every tenant).</summary>
    private static readonly Dictionary<string, string> BuiltInRoles = new(StringComparer.Ordinal)
    {
        ["4633458b-17de-408a-b874-0445c86b69e6"] = "Key Vault Secrets User",
        ["b7e6dc6d-f1e8-4753-8033-0f276bb0955b"] = "Storage Blob Data Owner",
        ["ba92f5b4-2d11-453d-a403-e96b0029c9fe"] = "Storage Blob Data Contributor",
        ["0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3"] = "Storage Table Data Contributor",
        ["76199698-9eea-4c19-bc75-cec21354c6b6"] = "Storage Table Data Reader",
        ["2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"] = "Storage Blob Data Reader",
        ["974c5e8b-45b9-4653-ba55-5f855dd0fb88"] = "Storage Queue Data Contributor",
        ["19e7f393-937e-4f77-808e-94535e297925"] = "Storage Queue Data Reader",
        ["c6a89b2d-59bc-44d0-9896-0f6e12d7b80a"] = "Storage Queue Data Message Sender",
        ["3913510d-42f4-4e42-8a64-420c390055eb"] = "Monitoring Metrics Publisher",
    };

    /// <summary>App grants: role, scope (resource type and name parameter). Each on the narrowest scope RBAC offers.</summary>
    private static readonly (string Role, string Scope)[] AppGrants =
    [
        ("Key Vault Secrets User", "Microsoft.KeyVault/vaults/secrets signingSecretName"),
        ("Key Vault Secrets User", "Microsoft.KeyVault/vaults/secrets auditSigningSecretName"),
        ("Storage Blob Data Owner", "Microsoft.Storage/storageAccounts hostStorageAccountName"),
        ("Storage Table Data Contributor", "Microsoft.Storage/storageAccounts hostStorageAccountName"),
        ("Monitoring Metrics Publisher", "Microsoft.Insights/components appInsightsName"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers packageContainerName"),
        ("Storage Blob Data Reader", "Microsoft.Storage/storageAccounts/blobServices/containers packageContainerName"),
        ("Storage Queue Data Contributor", "Microsoft.Storage/storageAccounts/queueServices/queues input"),
        ("Storage Queue Data Message Sender", "Microsoft.Storage/storageAccounts/queueServices/queues poison"),
        ("Storage Queue Data Message Sender", "Microsoft.Storage/storageAccounts/queueServices/queues output"),
        ("Storage Queue Data Message Sender", "Microsoft.Storage/storageAccounts/queueServices/queues rejected"),
        ("Storage Blob Data Reader", "Microsoft.Storage/storageAccounts/blobServices/containers claimCheck"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers canonical"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers rejected"),
        ("Storage Table Data Reader", "Microsoft.Storage/storageAccounts/tableServices/tables grantsTableName"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers audit"),
    ];

    private static CompiledInfra Infra => CompiledInfra.Instance;

    private static JsonObject RoleIds => CompiledInfra.Template(Infra.Module("roleAssignments"))["variables"]!["roleIds"]!.AsObject();

    private static string Role(JsonObject assignment)
    {
        var id = (string)assignment["properties"]!["roleDefinitionId"]!;
        var match = System.Text.RegularExpressions.Regex.Match(id, @"^\[subscriptionResourceId\('Microsoft\.Authorization/roleDefinitions', variables\('roleIds'\)\.(\w+)\)\]$");
        Assert.True(match.Success, $"roleDefinitionId {id} is not a built-in role id by subscriptionResourceId");
        return BuiltInRoles[(string)RoleIds[match.Groups[1].Value]!];
    }

    [Fact]
    public void AppAssignments_AreExactlyTheLeastPrivilegeSet_PerQueueAndPerContainer()
    {
        var app = Assignments("[parameters('principalId')]");

        Assert.Equal(
            AppGrants.Select(g => $"{g.Role} on {g.Scope}").Order(StringComparer.Ordinal),
            app.Select(a => $"{Role(a)} on {Scope(a)}").Order(StringComparer.Ordinal));
        Assert.All(app, a =>
        {
            Assert.Equal("ServicePrincipal", (string?)a["properties"]!["principalType"]);
            Assert.StartsWith("[guid(", (string?)a["name"], StringComparison.Ordinal);
        });
        Assert.Contains("'identity'", (string?)Infra.Module("roleAssignments")["properties"]!["parameters"]!["principalId"]!["value"], StringComparison.Ordinal);
    }

    [Fact]
    public void KeyVaultRole_IsScopedToTheSigningKeySecretOnly_AndMadeOnceTheKeyExists()
    {
        // The app's other Key Vault grant, on the audit seal key, is AuditTrailInfraTests'.
        var keyVault = Assert.Single(Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments").Select(a => a.Resource), a => Role(a).StartsWith("Key Vault", StringComparison.Ordinal) && Scope(a).EndsWith(" signingSecretName", StringComparison.Ordinal));

        Assert.Equal("[resourceId('Microsoft.KeyVault/vaults/secrets', parameters('keyVaultName'), parameters('signingSecretName'))]", (string?)keyVault["scope"]);
        Assert.Equal("[parameters('principalId')]", (string?)keyVault["properties"]!["principalId"]);
        // A role assignment needs its scope to exist: the secret is created by the key bootstrap, between Apply's two
        // deployments (PipelineScriptTests), so the grant waits for signingKeyExists.
        Assert.Equal("[parameters('signingKeyExists')]", (string?)keyVault["condition"]);
        var passed = Infra.Module("roleAssignments")["properties"]!["parameters"]!;
        Assert.Equal("[parameters('signingKeyExists')]", (string?)passed["signingKeyExists"]!["value"]);
        Assert.Equal("[parameters('signingSecretName')]", (string?)passed["signingSecretName"]!["value"]);
        Assert.Equal("widget-signing-key", Infra.Resolve("functionApp", Infra.Module("functionApp")["properties"]!["parameters"]!["signingSecretName"]!["value"]!));
    }

    [Fact]
    public void Site_IsCreatedAfterTheGrants_AndNeedsNoneResolvedToBeCreated()
    {
        var dependsOn = Infra.Module("functionApp")["dependsOn"]!.AsArray().Select(d => (string)d!).ToList();

        // The app's grants exist before its first start; and since no setting is a Key Vault reference (AppSettingsTests),
        // site creation never waits on RBAC propagation: the app itself retries the key.
        Assert.Contains("[resourceId('Microsoft.Resources/deployments', 'roleAssignments')]", dependsOn);
        Assert.DoesNotContain("@Microsoft.KeyVault(", Infra.Module("functionApp").ToJsonString(), StringComparison.Ordinal);
    }

    [Fact]
    public void WriteContainers_AreCreateOnly_NoOverwriteNoDelete()
    {
        // The data containers the app writes to (the package container's grant is the Flex platform's, for its package;
        // the audit container's, append only, is AuditTrailInfraTests').
        var writers = Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments").Select(a => a.Resource)
            .Where(a => Role(a) == "Storage Blob Data Contributor" && (string?)a["properties"]!["principalId"] == "[parameters('principalId')]")
            .Where(a => !Scope(a).EndsWith(" packageContainerName", StringComparison.Ordinal) && !Scope(a).EndsWith(" audit", StringComparison.Ordinal)).ToList();
        var condition = (string?)CompiledInfra.Template(Infra.Module("roleAssignments"))["variables"]!["createOnlyCondition"];

        Assert.Equal(2, writers.Count);
        Assert.All(writers, w =>
        {
            Assert.Equal("[variables('createOnlyCondition')]", (string?)w["properties"]!["condition"]);
            Assert.Equal("2.0", (string?)w["properties"]!["conditionVersion"]);
        });
        Assert.Equal("((!(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write'})) AND (!(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete'})))", condition);
    }

    [Fact]
    public void PipelineAssignments_PackageUploadAndQueueSmoke_OnlyThose_AndNoKeyVaultRole()
    {
        var deployer = Assert.Single(Assignments("[parameters('deployerPrincipalId')]"));
        Assert.Equal("Storage Blob Data Contributor on Microsoft.Storage/storageAccounts/blobServices/containers packageContainerName", $"{Role(deployer)} on {Scope(deployer)}");
        // The pipeline's deploy principal when the plan names it (so the what-if shows the real grant), else whoever deploys.
        Assert.Equal("[if(empty(parameters('packagePublisherPrincipalId')), createObject('value', deployer().objectId), createObject('value', parameters('packagePublisherPrincipalId')))]", (string?)Infra.Module("roleAssignments")["properties"]!["parameters"]!["deployerPrincipalId"]);

        // The smoke test: message send on the input queue, read (peek) on the output queue, nothing on Key Vault.
        var smoke = Assignments("[parameters('smokeTestPrincipalId')]");
        Assert.Equal(
            ["Storage Queue Data Message Sender on Microsoft.Storage/storageAccounts/queueServices/queues input", "Storage Queue Data Reader on Microsoft.Storage/storageAccounts/queueServices/queues output"],
            smoke.Select(a => $"{Role(a)} on {Scope(a)}").Order(StringComparer.Ordinal));
        Assert.All(smoke, a => Assert.Equal("[variables('grantSmokeTest')]", (string?)a["condition"]));
        Assert.Equal("[not(empty(parameters('smokeTestPrincipalId')))]", (string?)CompiledInfra.Template(Infra.Module("roleAssignments"))["variables"]!["grantSmokeTest"]);
    }

    [Fact]
    public void EveryAssignment_HasAScopeARoleId_AndIsTheAppsThePipelinesTwoOrTheAuditReaders()
    {
        var all = Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments");

        Assert.NotEmpty(all);
        Assert.All(all, a =>
        {
            Assert.Equal("roleAssignments", a.Module);
            Assert.StartsWith("[resourceId('Microsoft.", (string?)a.Resource["scope"], StringComparison.Ordinal);
            Assert.Contains(Role(a.Resource), BuiltInRoles.Values);
            Assert.Contains((string?)a.Resource["properties"]!["principalId"], new[] { "[parameters('principalId')]", "[parameters('deployerPrincipalId')]", "[parameters('smokeTestPrincipalId')]", "[parameters('auditReaderPrincipalId')]" });
        });
        Assert.All(RoleIds, r => Assert.True(BuiltInRoles.ContainsKey((string)r.Value!), $"roleIds.{r.Key} is not a known built-in role id"));
        // Only the app's identity holds a Key Vault role (docs/deploy.md).
        Assert.All(all.Where(a => Role(a.Resource).StartsWith("Key Vault", StringComparison.Ordinal)), a => Assert.Equal("[parameters('principalId')]", (string?)a.Resource["properties"]!["principalId"]));
    }

    private static List<JsonObject> Assignments(string principal) =>
        Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments").Select(a => a.Resource)
            .Where(a => (string?)a["properties"]!["principalId"] == principal).ToList();

    /// <summary>"type name" of a scope like [resourceId('Microsoft.X/y/z', parameters('a'), 'default', parameters('q').input)].</summary>
    private static string Scope(JsonObject assignment)
    {
        var scope = (string)assignment["scope"]!;
        var match = System.Text.RegularExpressions.Regex.Match(scope, @"^\[resourceId\('([^']+)', (.+)\)\]$");
        Assert.True(match.Success, $"scope {scope} is not a resourceId()");
        var type = match.Groups[1].Value;
        var last = match.Groups[2].Value.Split(", ")[^1];
        var name = System.Text.RegularExpressions.Regex.Match(last, @"parameters\('(\w+)'\)(?:\.(\w+))?");
        return $"{type} {(name.Groups[2].Success ? name.Groups[2].Value : name.Groups[1].Value)}";
    }
}
