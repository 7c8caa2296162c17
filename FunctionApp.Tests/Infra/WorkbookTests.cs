using System.Text.Json.Nodes;
using WidgetSigning.Telemetry;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// The Azure Monitor workbook (infra/modules/workbook.bicep) as each deployment would create it: on the Application
/// Insights component, one chart per concern, each query naming the telemetry it charts.
/// </summary>
public sealed class WorkbookTests
{
    /// <summary>Each chart's query fragments: the table, the instrument or span names, the dimension and the aggregate.</summary>
    private static readonly Dictionary<string, string[]> Charts = new(StringComparer.Ordinal)
    {
        ["signatures-per-second"] =
        [
            "customMetrics", $"where name == \"{SigningMetrics.SignaturesInstrument}\"", $"tostring(customDimensions[\"{WidgetSigningTelemetry.OutcomeTag}\"]) == \"signed\"",
            "sum(valueSum) / ({TimeRange:grain} / 1s)", "bin(timestamp, {TimeRange:grain})", $"receiver = tostring(customDimensions[\"{WidgetSigningTelemetry.ReceiverTag}\"])",
        ],
        ["duration"] = ["requests", "where name in (\"Sign\", \"SignQueue\")", "percentile(duration, 50)", "percentile(duration, 95)"],
        ["refusals"] = ["customMetrics", $"where name == \"{SigningMetrics.RefusalsInstrument}\"", "sum(valueSum)", $"tostring(customDimensions[\"{WidgetSigningTelemetry.ProblemTypeTag}\"])"],
        ["queue-message-age"] = ["customMetrics", $"where name == \"{SigningMetrics.MessageAgeInstrument}\"", "max(valueMax)"],
        ["poison-messages"] = ["customMetrics", $"where name == \"{SigningMetrics.PoisonInstrument}\"", "sum(valueSum)"],
        ["key-expiry"] = ["customMetrics", $"where name == \"{SigningMetrics.KeyExpiryInstrument}\"", "min(value) / 86400.0", $"by receiver = tostring(customDimensions[\"{WidgetSigningTelemetry.ReceiverTag}\"])"],
    };

    private static CompiledInfra Infra => CompiledInfra.Instance;

    public static TheoryData<string> ParameterFiles() => CompiledInfra.ParameterFileData();

    public static TheoryData<string, string> ChartsInEveryFile()
    {
        var data = new TheoryData<string, string>();
        foreach (var file in CompiledInfra.ParameterFileNames)
        {
            foreach (var chart in Charts.Keys)
            {
                data.Add(file, chart);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void Workbook_IsSharedOnTheComponent_AndFallsBackToIt(string file)
    {
        var snapshot = Infra.Snapshots[file];
        var component = (string)snapshot.Single("Microsoft.Insights/components")["id"]!;

        var workbook = snapshot.Single("Microsoft.Insights/workbooks");

        Assert.True(Guid.TryParse((string?)workbook["name"], out _), "a workbook's name must be a GUID");
        Assert.Equal("shared", (string?)workbook["kind"]);
        Assert.Equal("workbook", (string?)workbook["properties"]!["category"]);
        Assert.Equal(component, (string?)workbook["properties"]!["sourceId"]);
        Assert.Equal([component], Content(workbook)["fallbackResourceIds"]!.AsArray().Select(r => (string)r!));
        Assert.Equal("Notebook/1.0", (string?)Content(workbook)["version"]);
    }

    [Theory]
    [MemberData(nameof(ChartsInEveryFile))]
    public void Chart_Query_NamesItsTelemetry_OverTheChosenTimeRange(string file, string chart)
    {
        var item = Assert.Single(Items(Infra.Snapshots[file]), i => (string?)i["name"] == chart)["content"]!;

        var query = (string)item["query"]!;

        Assert.All(Charts[chart], f => Assert.Contains(f, query, StringComparison.Ordinal));
        Assert.Equal("TimeRange", (string?)item["timeContextFromParameter"]);
        Assert.Equal("microsoft.insights/components", (string?)item["resourceType"]);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void Workbook_HasExactlyTheChartsAndATimeRangePicker(string file)
    {
        var items = Items(Infra.Snapshots[file]);

        Assert.Equal(Charts.Keys.Order(StringComparer.Ordinal), items.Where(i => (int)i["type"]! == 3).Select(i => (string)i["name"]!).Order(StringComparer.Ordinal));
        var picker = Assert.Single(items, i => (int)i["type"]! == 9)["content"]!["parameters"]!.AsArray();
        Assert.Contains(picker, p => (string?)p!["name"] == "TimeRange" && (int)p["type"]! == 4);
    }

    [Theory]
    [MemberData(nameof(ParameterFiles))]
    public void Workbook_CarriesNoInstrumentationKeyOrConnectionString(string file)
    {
        var workbook = Infra.Snapshots[file].Single("Microsoft.Insights/workbooks").ToJsonString();

        Assert.DoesNotContain(new[] { "InstrumentationKey", "ConnectionString", "iKey", "listKeys" }, s => workbook.Contains(s, StringComparison.OrdinalIgnoreCase));
    }

    /// <summary>The workbook's serializedData, as Azure receives it.</summary>
    private static JsonObject Content(JsonObject workbook) =>
        JsonNode.Parse((string)workbook["properties"]!["serializedData"]!)!.AsObject();

    private static List<JsonObject> Items(DeploymentSnapshot snapshot) =>
        Content(snapshot.Single("Microsoft.Insights/workbooks"))["items"]!.AsArray().OfType<JsonObject>().ToList();
}
