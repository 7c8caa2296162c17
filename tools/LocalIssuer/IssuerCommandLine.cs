using System.Globalization;

namespace LocalIssuer;

/// <summary>The issuer's command line: <c>--port</c> (default 7079; 0 picks a free one, which the ready line names).</summary>
/// <param name="Port">The loopback port to listen on.</param>
internal sealed record IssuerCommandLine(int Port)
{
    /// <summary>The port <c>npm start</c> and <c>npm run token</c> use unless <c>ISSUER_PORT</c> moves it.</summary>
    public const int DefaultPort = 7079;

    private const string Usage = "usage: LocalIssuer [--port <0-65535>]";

    /// <summary>Parses <paramref name="args"/>; throws <see cref="ArgumentException"/> naming what is wrong.</summary>
    /// <param name="args">The arguments.</param>
    public static IssuerCommandLine Parse(string[] args)
    {
        var port = DefaultPort;
        for (var i = 0; i < args.Length; i += 2)
        {
            if (args[i] != "--port")
            {
                throw new ArgumentException($"Unknown argument '{args[i]}'. {Usage}");
            }

            var value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"--port needs a value. {Usage}");
            port = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var parsed) && parsed <= 65535
                ? parsed
                : throw new ArgumentException($"--port must be 0-65535, not '{value}'. {Usage}");
        }

        return new IssuerCommandLine(port);
    }
}
