using System.Text.Json;
using Microsoft.Extensions.Configuration;

namespace LocalHost;

/// <summary>Settings as func start assembles them: local.settings.json <c>Values</c> at the root, host.json under <c>AzureFunctionsJobHost</c>.</summary>
public static class AppSettings
{
    /// <summary>The flattened settings; environment variables are settings too and override local.settings.json, as with func start.</summary>
    public static Dictionary<string, string?> Read(string appRoot, string? localSettingsPath)
    {
        var settings = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase);
        foreach (var (key, value) in new ConfigurationBuilder().AddJsonFile(Path.Combine(appRoot, "host.json"), optional: false).Build().AsEnumerable())
        {
            if (value is not null)
            {
                settings["AzureFunctionsJobHost:" + key] = value;
            }
        }

        if (localSettingsPath is not null && File.Exists(localSettingsPath))
        {
            using var document = JsonDocument.Parse(File.ReadAllText(localSettingsPath));
            if (document.RootElement.TryGetProperty("Values", out var values))
            {
                foreach (var property in values.EnumerateObject())
                {
                    var value = property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString() : property.Value.GetRawText();
                    settings[property.Name] = value;
                    if (property.Name.Contains("__", StringComparison.Ordinal))
                    {
                        // func start hands Values to the host as environment variables, where A__B is the setting A:B
                        // (AzureFunctionsJobHost__extensions__http__maxConcurrentRequests overrides host.json).
                        settings[property.Name.Replace("__", ":", StringComparison.Ordinal)] = value;
                    }
                }
            }
        }

        // The environment wins, and every variable is a setting, as in the host's configuration; A:B is spelled A__B
        // there (also for host.json keys: AzureFunctionsJobHost__extensions__queues__visibilityTimeout).
        foreach (var (key, value) in new ConfigurationBuilder().AddEnvironmentVariables().Build().AsEnumerable())
        {
            if (value is not null)
            {
                settings[key] = value;
            }
        }

        return settings;
    }
}
