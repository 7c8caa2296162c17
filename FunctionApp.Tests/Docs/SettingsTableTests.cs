using System.Globalization;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Queues;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Docs;

/// <summary>
/// The settings table in docs/operations.md lists every setting the app's options read, with the option's default,
/// and nothing the app does not read; the options come from <see cref="AppOptionsCatalog"/>, not from a list here.
/// </summary>
public sealed class SettingsTableTests
{
    /// <summary>
    /// Settings read outside an options class (the storage connection, the environment, the host's body limit) or as a
    /// section of one value per receiver (the development keys).
    /// </summary>
    private static readonly string[] OtherSettings =
        [
            QueueOptions.ConnectionSetting, AzureEnvironment.EnvironmentSetting, "FUNCTIONS_REQUEST_BODY_SIZE_LIMIT", LocalKeyOptions.LocalKeysSetting,

            // The isolated app's telemetry settings (WidgetSigning.Telemetry, net10.0 only, so named here).
            "APPLICATIONINSIGHTS_CONNECTION_STRING", "APPLICATIONINSIGHTS_AUTHENTICATION_STRING", "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SERVICE_NAME", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
        ];

    /// <summary>The table's rows that name an app setting (not host.json), as setting → default cell.</summary>
    private static Dictionary<string, string> Documented() => MarkdownFile.Load("docs/operations.md").TableRows("setting")
        .Where(r => r[0].StartsWith('`'))
        .ToDictionary(r => r[0].Trim('`'), r => r[1], StringComparer.Ordinal);

    [Fact]
    public void SettingsTable_InOperationsDoc_ListsEveryOptionAndOtherSetting()
    {
        // Arrange
        var documented = Documented();

        // Act
        var missing = AppOptionsCatalog.Defaults.Keys.Concat(OtherSettings).Where(k => !documented.ContainsKey(k)).ToList();

        // Assert
        Assert.True(AppOptionsCatalog.Defaults.Count > 20, "the catalog found too few options to check against");
        Assert.True(missing.Count == 0, $"docs/operations.md does not list: {string.Join(", ", missing)}");
    }

    [Fact]
    public void SettingsTable_InOperationsDoc_ListsOnlySettingsTheAppReads()
    {
        // Act
        var unknown = Documented().Keys.Where(k => !AppOptionsCatalog.Defaults.ContainsKey(k) && !OtherSettings.Contains(k)).ToList();

        // Assert
        Assert.True(unknown.Count == 0, $"docs/operations.md lists settings the app does not read (renamed or removed?): {string.Join(", ", unknown)}");
    }

    [Fact]
    public void SettingsTable_InOperationsDoc_GivesEachOptionsDefault()
    {
        // Arrange
        var documented = Documented();

        // Act
        var wrong = AppOptionsCatalog.Defaults
            .Where(d => documented.TryGetValue(d.Key, out var cell) && !IsDefault(cell, d.Value))
            .Select(d => $"{d.Key}: documented '{documented[d.Key]}', the option's default is '{Convert.ToString(d.Value, CultureInfo.InvariantCulture) ?? "–"}'")
            .ToList();

        // Assert
        Assert.True(wrong.Count == 0, string.Join("; ", wrong));
    }

    [Fact]
    public void SettingsTable_InOperationsDoc_GivesTheHostBodyLimitAsTheAppsBodyLimitPlusChunkFramingRoom()
    {
        var cell = Documented()["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"];

        Assert.StartsWith(new HttpOptions().HostBodyLimit.ToString(CultureInfo.InvariantCulture) + " ", cell, StringComparison.Ordinal);
    }

    /// <summary>Whether a default cell (a bare value, or – for none) states <paramref name="value"/>.</summary>
    private static bool IsDefault(string cell, object? value)
    {
        var text = cell.Trim('`');
        return value switch
        {
            null => text == "–",
            string { Length: 0 } => text == "(empty)",
            TimeSpan span => TimeSpan.TryParse(text, CultureInfo.InvariantCulture, out var parsed) && parsed == span,
            int or long => long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var number) && number == Convert.ToInt64(value, CultureInfo.InvariantCulture),
            _ => text == Convert.ToString(value, CultureInfo.InvariantCulture),
        };
    }
}
