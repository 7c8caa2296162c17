using System.Text.Json.Nodes;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// One parameter file's deployment as <c>bicep snapshot</c> predicts it: every resource that deployment would create
/// (conditions applied, parameters and names resolved; values only Azure knows, such as endpoints and client ids, left as
/// <c>[reference(...)]</c> text).
/// </summary>
public sealed class DeploymentSnapshot(JsonObject document)
{
    /// <summary>The snapshot document.</summary>
    public JsonObject Document { get; } = document;

    /// <summary>The predicted resources.</summary>
    public IReadOnlyList<JsonObject> Resources => Document["predictedResources"]!.AsArray().OfType<JsonObject>().ToList();

    /// <summary>The predicted resources of <paramref name="type"/>.</summary>
    public IReadOnlyList<JsonObject> OfType(string type) =>
        Resources.Where(r => string.Equals((string?)r["type"], type, StringComparison.OrdinalIgnoreCase)).ToList();

    /// <summary>The one resource of <paramref name="type"/>.</summary>
    public JsonObject Single(string type) => Assert.Single(OfType(type));

    /// <summary>The function app's settings by name.</summary>
    public IReadOnlyDictionary<string, string> AppSettings =>
        Single("Microsoft.Web/sites")["properties"]!["siteConfig"]!["appSettings"]!.AsArray().OfType<JsonObject>()
            .ToDictionary(s => (string)s["name"]!, s => (string)s["value"]!, StringComparer.Ordinal);

    /// <summary>The role assignments as (role definition id, scope, principal id expression, description).</summary>
    public IReadOnlyList<(string RoleId, string Scope, string Principal, string Description)> RoleAssignments =>
        OfType("Microsoft.Authorization/roleAssignments")
            .Select(a => (
                ((string)a["properties"]!["roleDefinitionId"]!)[^36..],
                ScopeOf((string)a["id"]!),
                (string)a["properties"]!["principalId"]!,
                (string?)a["properties"]!["description"] ?? string.Empty))
            .ToList();

    /// <summary>The scope of a role assignment's id.</summary>
    private static string ScopeOf(string id)
    {
        // Resolved: {scope}/providers/Microsoft.Authorization/roleAssignments/{guid}; else the expression with the scope first.
        var at = id.LastIndexOf("/providers/Microsoft.Authorization/roleAssignments/", StringComparison.OrdinalIgnoreCase);
        if (id.StartsWith('/') && at > 0)
        {
            return id[..at];
        }

        var match = System.Text.RegularExpressions.Regex.Match(id, @"^\[extensionResourceId\('([^']+)'");
        Assert.True(match.Success, $"role assignment id {id} names no scope");
        return match.Groups[1].Value;
    }
}
