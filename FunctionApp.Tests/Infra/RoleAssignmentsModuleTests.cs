using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra.Bicep;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// Source checks of infra/modules/roleAssignments.bicep: every grant, its built-in role id, its scope and its
/// principal, traced back through main.bicep to the resources the other modules create.
/// </summary>
public sealed partial class RoleAssignmentsModuleTests
{
    /// <summary>Azure built-in role definition ids (the same in every tenant).</summary>
    private static readonly Dictionary<string, string> BuiltInRoles = new(StringComparer.Ordinal)
    {
        ["keyVaultSecretsUser"] = "4633458b-17de-408a-b874-0445c86b69e6",
        ["keyVaultSecretsOfficer"] = "b86a8fe4-44ce-4948-aee5-eccb2c155cd7",
        ["storageBlobDataOwner"] = "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
        ["storageBlobDataContributor"] = "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
        ["storageTableDataContributor"] = "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3",
        ["storageQueueDataReader"] = "19e7f393-937e-4f77-808e-94535e297925",
        ["storageQueueDataMessageProcessor"] = "8a0f0c08-91a1-4084-bc3d-661d67233fed",
        ["storageQueueDataMessageSender"] = "c6a89b2d-59bc-44d0-9896-0f6e12d7b80a",
    };

    /// <summary>Roles broader than anything the app needs; none may appear anywhere in infra/.</summary>
    private static readonly Dictionary<string, string> TooBroad = new(StringComparer.Ordinal)
    {
        ["Owner"] = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
        ["Contributor"] = "b24988ac-6180-42a0-ab88-20f7382dd24c",
        ["User Access Administrator"] = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9",
        ["Storage Account Contributor"] = "17d1049b-9a84-46fb-8f53-869881c3d3ab",
        ["Storage Queue Data Contributor"] = "974c5e8b-45b9-4653-ba55-5f855dd0fb88",
        ["Key Vault Administrator"] = "00482a5a-887f-4fb3-b363-3b7fe8e74483",
    };

    /// <summary>Assignment symbol -> (role, scope symbol, principal param).</summary>
    private static readonly Dictionary<string, (string Role, string Scope, string Principal)> Expected = new(StringComparer.Ordinal)
    {
        ["appKeyVaultSecretsUser"] = ("keyVaultSecretsUser", "vault", "principalId"),
        ["appHostBlobDataOwner"] = ("storageBlobDataOwner", "hostStorage", "principalId"),
        ["appHostTableDataContributor"] = ("storageTableDataContributor", "hostStorage", "principalId"),
        ["appInputQueueReader"] = ("storageQueueDataReader", "inputQueue", "principalId"),
        ["appInputQueueProcessor"] = ("storageQueueDataMessageProcessor", "inputQueue", "principalId"),
        ["appPoisonQueueSender"] = ("storageQueueDataMessageSender", "poisonQueue", "principalId"),
        ["appOutputQueueSender"] = ("storageQueueDataMessageSender", "outputQueue", "principalId"),
        ["appRejectedQueueSender"] = ("storageQueueDataMessageSender", "rejectedQueue", "principalId"),
        ["appClaimCheckBlobContributor"] = ("storageBlobDataContributor", "claimCheckContainer", "principalId"),
        ["appCanonicalBlobContributor"] = ("storageBlobDataContributor", "canonicalContainer", "principalId"),
        ["appRejectedBlobContributor"] = ("storageBlobDataContributor", "rejectedContainer", "principalId"),
        ["deployerKeyVaultSecretsOfficer"] = ("keyVaultSecretsOfficer", "vault", "secretsOfficerPrincipalId"),
    };

    /// <summary>Scope symbol -> (resource type, name expression) of the existing resources the grants sit on.</summary>
    private static readonly Dictionary<string, (string Type, string Name)> Scopes = new(StringComparer.Ordinal)
    {
        ["vault"] = ("Microsoft.KeyVault/vaults", "keyVaultName"),
        ["hostStorage"] = ("Microsoft.Storage/storageAccounts", "hostStorageAccountName"),
        ["inputQueue"] = ("Microsoft.Storage/storageAccounts/queueServices/queues", "queueNames.input"),
        ["poisonQueue"] = ("Microsoft.Storage/storageAccounts/queueServices/queues", "queueNames.poison"),
        ["outputQueue"] = ("Microsoft.Storage/storageAccounts/queueServices/queues", "queueNames.output"),
        ["rejectedQueue"] = ("Microsoft.Storage/storageAccounts/queueServices/queues", "queueNames.rejected"),
        ["claimCheckContainer"] = ("Microsoft.Storage/storageAccounts/blobServices/containers", "containerNames.claimCheck"),
        ["canonicalContainer"] = ("Microsoft.Storage/storageAccounts/blobServices/containers", "containerNames.canonical"),
        ["rejectedContainer"] = ("Microsoft.Storage/storageAccounts/blobServices/containers", "containerNames.rejected"),
    };

    private static BicepFile Module => InfraFiles.Module("roleAssignments");

    [Fact]
    public void RoleIds_AreTheBuiltInRoleDefinitionIds()
    {
        var roleIds = Assert.IsType<BicepObject>(Module.Var("roleIds").Value);

        Assert.Equal(
            BuiltInRoles.OrderBy(r => r.Key, StringComparer.Ordinal),
            roleIds.Properties.Select(p => KeyValuePair.Create(p.Key, InfraFiles.Literal(p.Value))).OrderBy(r => r.Key, StringComparer.Ordinal));
    }

    [Fact]
    public void Assignments_AreExactlyTheLeastPrivilegeSet()
    {
        var assignments = Module.ResourcesOfType("Microsoft.Authorization/roleAssignments").ToList();

        Assert.Equal(Expected.Keys.Order(StringComparer.Ordinal), assignments.Select(a => a.Name).Order(StringComparer.Ordinal));
        foreach (var assignment in assignments)
        {
            var (role, scope, principal) = Expected[assignment.Name];
            var properties = assignment.Body.Object("properties");
            Assert.Equal($"subscriptionResourceId('Microsoft.Authorization/roleDefinitions',roleIds.{role})", properties["roleDefinitionId"].Text);
            Assert.Equal(principal, properties["principalId"].Text);
            Assert.Equal(scope, assignment.Body["scope"].Text);
            Assert.Equal($"guid({scope}.id,{principal},roleIds.{role})", assignment.Body["name"].Text);
        }
    }

    [Fact]
    public void AppAssignments_AreForTheServicePrincipalOfTheAppsIdentity()
    {
        var appAssignments = Module.ResourcesOfType("Microsoft.Authorization/roleAssignments").Where(a => a.Name.StartsWith("app", StringComparison.Ordinal));

        Assert.All(appAssignments, a =>
        {
            Assert.Equal("ServicePrincipal", InfraFiles.Literal(a.Body.Path("properties.principalType")));
            Assert.Null(a.Condition);
        });
        Assert.Equal("identity.outputs.principalId", InfraFiles.Main.Module("roleAssignments").Body.Path("params.principalId").Text);
        Assert.Equal("identity.properties.principalId", InfraFiles.Module("identity").Output("principalId").Value!.Text);
        Assert.Equal("Microsoft.ManagedIdentity/userAssignedIdentities", InfraFiles.Module("identity").Resource("identity").ResourceType);
    }

    [Fact]
    public void DeployerGrant_IsOptionalAndOnlyOnTheVault()
    {
        var grant = Module.Resource("deployerKeyVaultSecretsOfficer");

        Assert.Equal("(!empty(secretsOfficerPrincipalId))", grant.Condition);
        Assert.Equal("secretsOfficerPrincipalType", grant.Body.Path("properties.principalType").Text);
        var main = InfraFiles.Main;
        Assert.Equal("secretsOfficerPrincipalId", main.Module("roleAssignments").Body.Path("params.secretsOfficerPrincipalId").Text);
    }

    [Fact]
    public void Scopes_AreTheResourcesTheOtherModulesCreate()
    {
        var mainParams = InfraFiles.Main.Module("roleAssignments").Body.Object("params");

        foreach (var (symbol, (type, name)) in Scopes)
        {
            var scope = Module.Resource(symbol);
            Assert.True(scope.Existing, $"{symbol} must be an existing reference");
            Assert.Equal(type, scope.ResourceType);
            Assert.Equal(name, scope.Body["name"].Text);
        }

        Assert.Equal("dataStorage", Module.Resource("queueService").Body["parent"].Text);
        Assert.Equal("dataStorage", Module.Resource("blobService").Body["parent"].Text);
        Assert.Equal("dataStorageAccountName", Module.Resource("dataStorage").Body["name"].Text);
        Assert.Equal("keyVault.outputs.name", mainParams["keyVaultName"].Text);
        Assert.Equal("storage.outputs.hostStorageAccountName", mainParams["hostStorageAccountName"].Text);
        Assert.Equal("storage.outputs.dataStorageAccountName", mainParams["dataStorageAccountName"].Text);
        Assert.Equal("storage.outputs.queueNames", mainParams["queueNames"].Text);
        Assert.Equal("storage.outputs.containerNames", mainParams["containerNames"].Text);
    }

    [Theory]
    [MemberData(nameof(InfraFiles.BicepPathData), MemberType = typeof(InfraFiles))]
    public void NoFile_GrantsABroaderRole(string path)
    {
        var source = BicepFile.Load(path).Source;
        var guids = Guid().Matches(source).Select(m => m.Value.ToLowerInvariant()).ToList();

        Assert.DoesNotContain(guids, g => TooBroad.ContainsValue(g));
        Assert.All(guids, g => Assert.Contains(g, BuiltInRoles.Values));
        Assert.DoesNotContain(Module.ResourcesOfType("Microsoft.Authorization/roleAssignments"), a => a.Body["scope"].Text is "resourceGroup()" or "subscription()");
    }

    [GeneratedRegex("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")]
    private static partial Regex Guid();
}
