using System.Globalization;

namespace WorkerHost;

/// <summary>Command line of the worker host. Defaults: port 7071 on 127.0.0.1, settings from &lt;app&gt;/local.settings.json if present.</summary>
/// <param name="AppRoot">The isolated app's build output (worker.config.json, functions.metadata, host.json, the app dll).</param>
/// <param name="LocalSettings">local.settings.json, whose <c>Values</c> are the app settings; null when there is none.</param>
/// <param name="Port">The HTTP port (0 picks a free one; the ready line says which).</param>
internal sealed record WorkerHostOptions(string AppRoot, string? LocalSettings, int Port)
{
    public const string Usage = "usage: WorkerHost --app <isolated app build output> [--settings <local.settings.json>] [--port <port, default 7071, 0 = free>]";

    public static WorkerHostOptions Parse(string[] args)
    {
        string? app = null, settings = null;
        var port = 7071;
        for (var i = 0; i < args.Length; i++)
        {
            var value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value. {Usage}");
            switch (args[i])
            {
                case "--app": app = value; break;
                case "--settings": settings = value; break;
                case "--port":
                    port = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var parsed) && parsed <= 65535
                        ? parsed
                        : throw new ArgumentException($"--port must be 0-65535, not '{value}'.");
                    break;
                default: throw new ArgumentException($"Unknown argument '{args[i]}'. {Usage}");
            }

            i++;
        }

        var appRoot = Path.GetFullPath(app ?? throw new ArgumentException($"--app is required. {Usage}"));
        var defaultSettings = Path.Combine(appRoot, "local.settings.json");
        return new WorkerHostOptions(
            appRoot,
            settings is not null ? Path.GetFullPath(settings) : File.Exists(defaultSettings) ? defaultSettings : null,
            port);
    }
}
