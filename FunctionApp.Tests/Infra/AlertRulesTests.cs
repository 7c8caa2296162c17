using System.Text.Json.Nodes;
using WidgetSigning.Telemetry;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// The log search alert rules (infra/modules/alerts.bicep) as each deployment would create them (<c>bicep snapshot</c>):
/// every rule queries the names of the WidgetSigning meter or the host's invocation spans, with its threshold, operator,
/// window and severity, and notifies the action group main.bicep is given, or no one.
/// </summary>
public sealed class AlertRulesTests
{
    private const string ActionGroupId = "/subscriptions/00000000-0000-0000-0000-000000000009/resourceGroups/rg-ops/providers/Microsoft.Insights/actionGroups/ag-oncall";

    /// <summary>What each rule must be with main.bicep's defaults: its query's fragments, measure, threshold, window.</summary>
    private static readonly Dictionary<string, ExpectedRule> Expected = new(StringComparer.Ordinal)
    {
        ["http-5xx"] = new(
            ["requests", "where name in (\"Sign\", \"Verify\", \"Keys\")", "sumif(itemCount, resultCode startswith \"5\")", "where total >= 20"],
            "serverErrorPercent", "Maximum", "GreaterThan", 5, "alertHttpServerErrorPercent", "PT5M", "PT5M", 1, null),
        ["refusal-spike"] = new(
            ["customMetrics", $"where name == \"{SigningMetrics.RefusalsInstrument}\"", "sum(valueSum)"],
            "refusals", "Total", "GreaterThan", 100, "alertRefusalsPer5Minutes", "PT5M", "PT5M", 2, null),
        ["queue-message-age"] = new(
            ["customMetrics", $"where name == \"{SigningMetrics.MessageAgeInstrument}\"", "max(valueMax)"],
            "maxMessageAgeSeconds", "Maximum", "GreaterThan", 300, "alertQueueMessageAgeSeconds", "PT5M", "PT5M", 2, null),
        ["poison-messages"] = new(
            ["customMetrics", $"where name == \"{SigningMetrics.PoisonInstrument}\"", "sum(valueSum)"],
            "poisonMessages", "Total", "GreaterThan", 0, null, "PT5M", "PT15M", 1, null),
        ["keyvault-refresh-failures"] = new(
            ["customMetrics", $"where name == \"{SigningMetrics.KeyVaultRefreshesInstrument}\"", $"tostring(customDimensions[\"{WidgetSigningTelemetry.OutcomeTag}\"]) == \"failure\"", "sum(valueSum)"],
            "failures", "Total", "GreaterThan", 2, "alertKeyVaultRefreshFailures", "PT5M", "PT15M", 1, null),
        ["audit-wait"] = new(
            ["dependencies", $"where name == \"{WidgetSigningTelemetry.AuditWaitSpan}\"", "percentile(duration, 95)", "where waits >= 20"],
            "auditWaitP95Milliseconds", "Maximum", "GreaterThan", 250, "alertAuditWaitP95Milliseconds", "PT5M", "PT5M", 2, null),
        ["key-expiry"] = new(
            ["customMetrics", $"where name == \"{SigningMetrics.KeyExpiryInstrument}\"", "min(value)", $"by receiver = tostring(customDimensions[\"{WidgetSigningTelemetry.ReceiverTag}\"])", $"customDimensions[\"{WidgetSigningTelemetry.KeyStateTag}\"]) != \"retiring\""],
            "secondsToExpiry", "Minimum", "LessThan", 14 * 86400, "alertKeyExpiryDays", "PT1H", "PT1H", 2, "receiver"),
    };

    /// <summary>A deployment with an action group and every threshold changed from its default.</summary>
    private static readonly Lazy<DeploymentSnapshot> Customised = new(() =>
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf(
            $"param actionGroupId = '{ActionGroupId}'\nparam alertHttpServerErrorPercent = 10\nparam alertHttpMinimumRequests = 50\n" +
            "param alertRefusalsPer5Minutes = 500\nparam alertQueueMessageAgeSeconds = 60\nparam alertKeyVaultRefreshFailures = 0\nparam alertKeyExpiryDays = 30\n" +
            "param alertAuditWaitP95Milliseconds = 1000");
        return snapshot ?? throw new InvalidOperationException(run.Output + run.Error);
    });

    private static CompiledInfra Infra => CompiledInfra.Instance;

    public static TheoryData<string, string> RulesInEveryFile()
    {
        var data = new TheoryData<string, string>();
        foreach (var file in CompiledInfra.ParameterFileNames)
        {
            foreach (var rule in Expected.Keys)
            {
                data.Add(file, rule);
            }
        }

        return data;
    }

    public static TheoryData<string> ParameterFiles() => CompiledInfra.ParameterFileData();

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void Rules_InEveryDeployment_AreExactlyTheSevenOnTheComponent_WithNoIdentity(string file)
    {
        var snapshot = Infra.Snapshots[file];
        var component = (string)snapshot.Single("Microsoft.Insights/components")["id"]!;

        var rules = snapshot.OfType("Microsoft.Insights/scheduledQueryRules");

        Assert.Equal(Expected.Keys.Order(StringComparer.Ordinal), rules.Select(RuleKey).Order(StringComparer.Ordinal));
        Assert.All(rules, r =>
        {
            Assert.Equal("LogAlert", (string?)r["kind"]);
            Assert.True((bool)r["properties"]!["enabled"]!);
            Assert.True((bool)r["properties"]!["autoMitigate"]!);
            Assert.Equal([component], r["properties"]!["scopes"]!.AsArray().Select(s => (string)s!));
            // Azure Monitor runs a rule scoped to the component with its own authority: no identity to grant or leak.
            Assert.Null(r["identity"]);
        });
    }

    [Theory]
    [MemberData(nameof(RulesInEveryFile))]
    public void Rule_WithDefaults_QueriesItsTelemetryWithItsThresholdOperatorAndWindow(string file, string rule)
    {
        var expected = Expected[rule];

        var properties = Rule(Infra.Snapshots[file], rule)["properties"]!;
        var criterion = Assert.Single(properties["criteria"]!["allOf"]!.AsArray())!;

        var query = (string)criterion["query"]!;
        Assert.All(expected.QueryFragments, f => Assert.Contains(f, query, StringComparison.Ordinal));
        Assert.Contains($"{expected.Measure} = ", query, StringComparison.Ordinal);
        Assert.Equal(expected.Measure, (string?)criterion["metricMeasureColumn"]);
        Assert.Equal(expected.Aggregation, (string?)criterion["timeAggregation"]);
        Assert.Equal(expected.Operator, (string?)criterion["operator"]);
        Assert.Equal(expected.Threshold, (long)criterion["threshold"]!);
        Assert.Equal(expected.Frequency, (string?)properties["evaluationFrequency"]);
        Assert.Equal(expected.Window, (string?)properties["windowSize"]);
        Assert.Equal(expected.Severity, (int)properties["severity"]!);
        Assert.Equal(1, (int)criterion["failingPeriods"]!["minFailingPeriodsToAlert"]!);
        var dimensions = criterion["dimensions"]!.AsArray();
        if (expected.Dimension is null)
        {
            Assert.Empty(dimensions);
        }
        else
        {
            // One alert per receiver: the one whose key is near its exp is named in the alert.
            var dimension = Assert.Single(dimensions)!;
            Assert.Equal(expected.Dimension, (string?)dimension["name"]);
            Assert.Equal("Include", (string?)dimension["operator"]);
            Assert.Equal(["*"], dimension["values"]!.AsArray().Select(v => (string)v!));
        }
    }

    [Fact]
    public void Thresholds_Defaults_AreMainBicepsDocumentedParameters()
    {
        Assert.All(Expected.Where(e => e.Value.Parameter is not null), e =>
        {
            var parameter = Infra.Parameters[e.Value.Parameter!]!;
            var factor = e.Key == "key-expiry" ? 86400 : 1;
            Assert.Equal(e.Value.Threshold, (long)parameter["defaultValue"]! * factor);
            Assert.False(string.IsNullOrWhiteSpace((string?)parameter["metadata"]?["description"]));
            Assert.Equal("int", (string?)parameter["type"]);
        });
        Assert.Equal(20, (int)Infra.Parameters["alertHttpMinimumRequests"]!["defaultValue"]!);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void Rules_WithNoActionGroup_AreDeployedButNotifyNoOne(string file)
    {
        Assert.Equal(string.Empty, (string?)Infra.Parameters["actionGroupId"]!["defaultValue"]);

        var rules = Infra.Snapshots[file].OfType("Microsoft.Insights/scheduledQueryRules");

        Assert.Equal(Expected.Count, rules.Count);
        Assert.All(rules, r => Assert.Empty(r["properties"]!["actions"]!["actionGroups"]!.AsArray()));
    }

    [Fact]
    public void Rules_WithAnActionGroup_EveryRuleNotifiesIt()
    {
        var rules = Customised.Value.OfType("Microsoft.Insights/scheduledQueryRules");

        Assert.Equal(Expected.Count, rules.Count);
        Assert.All(rules, r => Assert.Equal([ActionGroupId], r["properties"]!["actions"]!["actionGroups"]!.AsArray().Select(a => (string)a!)));
    }

    [Theory]
    [InlineData("http-5xx", 10)]
    [InlineData("refusal-spike", 500)]
    [InlineData("queue-message-age", 60)]
    [InlineData("poison-messages", 0)]
    [InlineData("keyvault-refresh-failures", 0)]
    [InlineData("key-expiry", 30 * 86400)]
    [InlineData("audit-wait", 1000)]
    public void Thresholds_SetByParameters_ReachTheirRule(string rule, long threshold)
    {
        var criterion = Rule(Customised.Value, rule)["properties"]!["criteria"]!["allOf"]![0]!;

        Assert.Equal(threshold, (long)criterion["threshold"]!);
        if (rule == "http-5xx")
        {
            Assert.Contains("where total >= 50", (string?)criterion["query"], StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("not-an-id")]
    [InlineData("/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Insights/actionGroups/")]
    [InlineData("/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/ag")]
    [InlineData("/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Insights/actionGroups/ag/extra")]
    public void ActionGroupId_NotAnActionGroupsId_StopsTheDeploymentWithTheReason(string actionGroupId)
    {
        var (run, snapshot) = CompiledInfra.SnapshotOf($"param actionGroupId = '{actionGroupId}'");

        Assert.Null(snapshot);
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("actionGroupId must be the resource id of an action group", run.Output + run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void Rules_CarryNoInstrumentationKeyOrConnectionString(string file)
    {
        var rules = Infra.Snapshots[file].OfType("Microsoft.Insights/scheduledQueryRules");

        Assert.NotEmpty(rules);
        Assert.All(rules, r => Assert.DoesNotContain(
            new[] { "InstrumentationKey", "ConnectionString", "iKey", "listKeys" },
            s => r.ToJsonString().Contains(s, StringComparison.OrdinalIgnoreCase)));
    }

    [Fact]
    public void OperationsDoc_AlertTable_NamesEveryRuleAndItsDefault()
    {
        var doc = RepoFiles.ReadAllText("docs", "operations.md");
        var section = doc[doc.IndexOf("## Alerts and dashboard", StringComparison.Ordinal)..];
        var rules = Infra.Snapshots[CompiledInfra.ParameterFileNames[0]].OfType("Microsoft.Insights/scheduledQueryRules");

        Assert.All(rules, r => Assert.Contains((string)r["properties"]!["displayName"]!, section, StringComparison.Ordinal));
        Assert.All(Expected.Values.Where(e => e.Parameter is not null), e => Assert.Contains($"`{e.Parameter}`", section, StringComparison.Ordinal));
    }

    private static JsonObject Rule(DeploymentSnapshot snapshot, string rule) =>
        Assert.Single(snapshot.OfType("Microsoft.Insights/scheduledQueryRules"), r => RuleKey(r) == rule);

    /// <summary>A rule's name without its alert-&lt;environment&gt;-&lt;suffix&gt; prefix.</summary>
    private static string RuleKey(JsonObject rule)
    {
        var name = (string)rule["name"]!;
        Assert.Matches("^alert-[a-z0-9]+-[a-z0-9]{13}-", name);
        return name.Split('-', 4)[3];
    }

    private sealed record ExpectedRule(
        string[] QueryFragments,
        string Measure,
        string Aggregation,
        string Operator,
        long Threshold,
        string? Parameter,
        string Frequency,
        string Window,
        int Severity,
        string? Dimension);
}
