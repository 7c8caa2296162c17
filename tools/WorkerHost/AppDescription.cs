using System.Collections;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace WorkerHost;

/// <summary>The app as the host sees it before starting a worker: settings, worker.config.json and host.json.</summary>
internal sealed class AppDescription
{
    private const string Runtime = "dotnet-isolated";

    /// <summary>The configuration section host.json is under in the host (<c>AzureFunctionsJobHost__…</c> overrides it).</summary>
    private const string HostJsonSection = "AzureFunctionsJobHost";

    private AppDescription(string root, IReadOnlyDictionary<string, string> settings, string executable, string workerPath, JsonElement? hostJson)
    {
        Root = root;
        Settings = settings;
        Executable = executable;
        WorkerPath = workerPath;
        HostJson = hostJson;
    }

    public string Root { get; }

    /// <summary>The <c>Values</c> of local.settings.json: the worker's environment and the WebJobs host's configuration.</summary>
    public IReadOnlyDictionary<string, string> Settings { get; }

    public string Executable { get; }

    public string WorkerPath { get; }

    public JsonElement? HostJson { get; }

    public JsonElement? Extension(string name) => Json.Get(Json.Get(HostJson, "extensions"), name);

    /// <summary>Reads and checks the app; throws <see cref="StartRefusedException"/> where the real host would not start it.</summary>
    public static AppDescription Load(HostTools.HostCommandLine options)
    {
        var root = options.AppRoot;
        foreach (var required in new[] { "functions.metadata", "worker.config.json" })
        {
            if (!File.Exists(Path.Combine(root, required)))
            {
                throw new StartRefusedException(2, $"{root} holds no {required}; build the isolated app first (dotnet build FunctionApp.Isolated -c Release).");
            }
        }

        var settings = ReadSettings(options.LocalSettings);
        var runtime = settings.GetValueOrDefault("FUNCTIONS_WORKER_RUNTIME") ?? Environment.GetEnvironmentVariable("FUNCTIONS_WORKER_RUNTIME");
        if (!string.Equals(runtime, Runtime, StringComparison.OrdinalIgnoreCase))
        {
            throw new StartRefusedException(3, $"FUNCTIONS_WORKER_RUNTIME is '{runtime}', not '{Runtime}': the host would not use this app's worker.config.json.");
        }

        using var config = JsonDocument.Parse(File.ReadAllText(Path.Combine(root, "worker.config.json")), Json.Lenient);
        var description = Json.Get(config.RootElement, "description");
        var language = Json.Text(description, "language");
        if (!string.Equals(language, Runtime, StringComparison.OrdinalIgnoreCase))
        {
            throw new StartRefusedException(3, $"worker.config.json names language '{language}', not '{Runtime}'.");
        }

        // As RpcWorkerConfigFactory does: the executable and worker path are required, {WorkerRoot} is the app root, and a
        // relative worker path is relative to the directory holding worker.config.json.
        var executable = Json.Text(description, "defaultExecutablePath");
        var workerPath = Json.Text(description, "defaultWorkerPath");
        if (string.IsNullOrEmpty(executable) || string.IsNullOrEmpty(workerPath))
        {
            throw new StartRefusedException(3, "worker.config.json lacks description.defaultExecutablePath or description.defaultWorkerPath.");
        }

        var workerRoot = root + Path.DirectorySeparatorChar;
        executable = executable.Replace("{WorkerRoot}", workerRoot, StringComparison.OrdinalIgnoreCase);
        workerPath = Path.GetFullPath(Path.Combine(root, workerPath.Replace("{WorkerRoot}", workerRoot, StringComparison.OrdinalIgnoreCase)));
        if (!File.Exists(workerPath))
        {
            throw new StartRefusedException(2, $"the worker {workerPath} (worker.config.json defaultWorkerPath) does not exist.");
        }

        var hostJsonPath = Path.Combine(root, "host.json");
        JsonElement? hostJson = null;
        if (File.Exists(hostJsonPath))
        {
            using var document = JsonDocument.Parse(File.ReadAllText(hostJsonPath), Json.Lenient);
            hostJson = document.RootElement.Clone();
        }

        return new AppDescription(root, settings, executable, workerPath, WithOverrides(hostJson, settings));
    }

    /// <summary>
    /// host.json with the host's configuration overrides applied: a setting (or, winning over it, an environment variable)
    /// named <c>AzureFunctionsJobHost__extensions__queues__visibilityTimeout</c> (or with <c>:</c>) replaces that value, as
    /// the host's configuration layers them over host.json. Names match case-insensitively; missing objects are created.
    /// </summary>
    private static JsonElement? WithOverrides(JsonElement? hostJson, IReadOnlyDictionary<string, string> settings)
    {
        var overrides = settings
            .Concat(Environment.GetEnvironmentVariables().Cast<DictionaryEntry>().Select(e => new KeyValuePair<string, string>((string)e.Key, e.Value as string ?? string.Empty)))
            .Select(s => (Path: s.Key.Replace("__", ":", StringComparison.Ordinal).Split(':'), s.Value))
            .Where(s => s.Path.Length > 1 && string.Equals(s.Path[0], HostJsonSection, StringComparison.OrdinalIgnoreCase))
            .ToList();
        if (overrides.Count == 0)
        {
            return hostJson;
        }

        var root = (hostJson is { ValueKind: JsonValueKind.Object } h ? JsonNode.Parse(h.GetRawText()) as JsonObject : null) ?? [];
        foreach (var (path, value) in overrides)
        {
            var node = root;
            foreach (var name in path[1..^1])
            {
                var existing = Property(node, name);
                if (existing is not { Value: JsonObject child })
                {
                    child = [];
                    node[existing?.Key ?? name] = child;
                }

                node = child;
            }

            node[Property(node, path[^1])?.Key ?? path[^1]] = value;
        }

        using var document = JsonDocument.Parse(root.ToJsonString());
        return document.RootElement.Clone();
    }

    private static KeyValuePair<string, JsonNode?>? Property(JsonObject node, string name) =>
        node.FirstOrDefault(p => string.Equals(p.Key, name, StringComparison.OrdinalIgnoreCase)) is { Key: not null } p ? p : null;

    private static Dictionary<string, string> ReadSettings(string? path)
    {
        var settings = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        if (path is null)
        {
            return settings;
        }

        if (!File.Exists(path))
        {
            throw new StartRefusedException(2, $"the settings file {path} does not exist.");
        }

        using var document = JsonDocument.Parse(File.ReadAllText(path), Json.Lenient);
        if (Json.Get(document.RootElement, "Values") is { ValueKind: JsonValueKind.Object } values)
        {
            foreach (var property in values.EnumerateObject())
            {
                settings[property.Name] = property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString()! : property.Value.GetRawText();
            }
        }

        return settings;
    }
}
