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
        ["19e7f393-937e-4f77-808e-94535e297925"] = "Storage Queue Data Reader",
        ["8a0f0c08-91a1-4084-bc3d-661d67233fed"] = "Storage Queue Data Message Processor",
        ["c6a89b2d-59bc-44d0-9896-0f6e12d7b80a"] = "Storage Queue Data Message Sender",
    };

    /// <summary>App grants: role, scope resource type. Each on the narrowest scope that works.</summary>
    private static readonly (string Role, string ScopeType)[] AppGrants =
    [
        ("Key Vault Secrets User", "Microsoft.KeyVault/vaults"),
        ("Storage Blob Data Owner", "Microsoft.Storage/storageAccounts"),
        ("Storage Table Data Contributor", "Microsoft.Storage/storageAccounts"),
        ("Storage Queue Data Reader", "Microsoft.Storage/storageAccounts/queueServices/queues"),
        ("Storage Queue Data Message Processor", "Microsoft.Storage/storageAccounts/queueServices/queues"),
        ("Storage Queue Data Message Sender", "Microsoft.Storage/storageAccounts/queueServices/queues"),
        ("Storage Queue Data Message Sender", "Microsoft.Storage/storageAccounts/queueServices/queues"),
        ("Storage Queue Data Message Sender", "Microsoft.Storage/storageAccounts/queueServices/queues"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers"),
        ("Storage Blob Data Contributor", "Microsoft.Storage/storageAccounts/blobServices/containers"),
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
    public void AppAssignments_AreExactlyTheLeastPrivilegeSet_ForTheAppsServicePrincipal()
    {
        var app = Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments").Select(a => a.Resource)
            .Where(a => (string?)a["properties"]!["principalId"] == "[parameters('principalId')]").ToList();

        Assert.Equal(
            AppGrants.Select(g => $"{g.Role} on {g.ScopeType}").Order(StringComparer.Ordinal),
            app.Select(a => $"{Role(a)} on {ScopeType(a)}").Order(StringComparer.Ordinal));
        Assert.All(app, a =>
        {
            Assert.Equal("ServicePrincipal", (string?)a["properties"]!["principalType"]);
            Assert.Null(a["condition"]);
            Assert.StartsWith("[guid(", (string?)a["name"], StringComparison.Ordinal);
        });
        Assert.Contains("'identity'", (string?)Infra.Module("roleAssignments")["properties"]!["parameters"]!["principalId"]!["value"], StringComparison.Ordinal);
    }

    [Fact]
    public void EveryAssignment_HasAScopeARoleIdAndAPrincipalType()
    {
        var all = Infra.ResourcesOfType("Microsoft.Authorization/roleAssignments");

        Assert.NotEmpty(all);
        Assert.All(all, a =>
        {
            Assert.Equal("roleAssignments", a.Module);
            Assert.StartsWith("[resourceId('Microsoft.", (string?)a.Resource["scope"], StringComparison.Ordinal);
            Assert.NotNull(a.Resource["properties"]!["principalType"]);
            Assert.Contains(Role(a.Resource), BuiltInRoles.Values);
        });
        Assert.All(RoleIds, r => Assert.True(BuiltInRoles.ContainsKey((string)r.Value!), $"roleIds.{r.Key} is not a known built-in role id"));
        // Only the app's identity is granted anything: the pipeline holds no Key Vault data role (docs/deploy.md).
        Assert.All(all, a => Assert.Equal("[parameters('principalId')]", (string?)a.Resource["properties"]!["principalId"]));
    }

    private static string ScopeType(JsonObject assignment)
    {
        var scope = (string)assignment["scope"]!;
        return scope["[resourceId('".Length..scope.IndexOf('\'', "[resourceId('".Length)];
    }
}
