using System.Globalization;

namespace HostTools;

/// <summary>
/// The command line both local hosts take (tools/LocalHost for the in-process app, tools/WorkerHost for the isolated
/// app): <c>--app</c>, <c>--settings</c>, <c>--port</c>; one source file, linked into each.
/// </summary>
/// <param name="AppRoot">The app's build output.</param>
/// <param name="LocalSettings">local.settings.json, whose <c>Values</c> are the app settings; null when there is none.</param>
/// <param name="Port">The HTTP port (0 picks a free one; the ready line says which).</param>
internal sealed record HostCommandLine(string AppRoot, string? LocalSettings, int Port)
{
    /// <summary>Parses <paramref name="args"/>; <paramref name="usage"/> goes into every error.</summary>
    /// <param name="args">The arguments.</param>
    /// <param name="usage">The host's usage line.</param>
    /// <param name="settingsInAppByDefault">Without <c>--settings</c>, use &lt;app&gt;/local.settings.json when it exists.</param>
    public static HostCommandLine Parse(string[] args, string usage, bool settingsInAppByDefault)
    {
        string? app = null, settings = null;
        var port = 7071;
        for (var i = 0; i < args.Length; i++)
        {
            var value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value. {usage}");
            switch (args[i])
            {
                case "--app": app = value; break;
                case "--settings": settings = value; break;
                case "--port":
                    port = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var parsed) && parsed <= 65535
                        ? parsed
                        : throw new ArgumentException($"--port must be 0-65535, not '{value}'.");
                    break;
                default: throw new ArgumentException($"Unknown argument '{args[i]}'. {usage}");
            }

            i++;
        }

        var appRoot = Path.GetFullPath(app ?? throw new ArgumentException($"--app is required. {usage}"));
        var inApp = Path.Combine(appRoot, "local.settings.json");
        return new HostCommandLine(
            appRoot,
            settings is not null ? Path.GetFullPath(settings) : settingsInAppByDefault && File.Exists(inApp) ? inApp : null,
            port);
    }
}
