using System.Globalization;

namespace LocalHost;

/// <summary>Command line of the local host. Defaults: port 7071 on 127.0.0.1, settings from FunctionApp/local.settings.json.</summary>
/// <param name="AppRoot">The function app build output (host.json, function folders, bin/).</param>
/// <param name="LocalSettings">local.settings.json, whose <c>Values</c> are the app settings.</param>
/// <param name="Port">The HTTP port (0 picks a free one; the ready line says which).</param>
internal sealed record LocalHostOptions(string AppRoot, string? LocalSettings, int Port)
{
    public const string Usage = "usage: LocalHost --app <FunctionApp build output> [--settings <local.settings.json>] [--port <port, default 7071>]";

    public static LocalHostOptions Parse(string[] args)
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

        return new LocalHostOptions(
            Path.GetFullPath(app ?? throw new ArgumentException($"--app is required. {Usage}")),
            settings is null ? null : Path.GetFullPath(settings),
            port);
    }
}
