using System.Text.RegularExpressions;

namespace AuditTrail;

/// <summary>The parsed command line: <c>verify</c> or <c>find &lt;id&gt;</c> and the options both share.</summary>
internal sealed partial class CommandLine
{
    /// <summary>The container the service writes to unless <c>Audit:Container</c> says otherwise.</summary>
    public const string DefaultContainer = "widget-audit";

    /// <summary>The longest webhook id the service accepts (and so the longest <c>find</c> argument but a hash).</summary>
    public const int MaxWebhookIdLength = 128;

    /// <summary>The most <c>--public-key</c> options.</summary>
    public const int MaxPublicKeys = 16;

    /// <summary>The usage text.</summary>
    public const string Usage =
        "usage: AuditTrail verify [--process <p>] [--public-key whpk_<base64>]... [connection options]\n" +
        "       AuditTrail find <webhook-id | 64-hex canonical SHA-256> [--process <p>] [connection options]\n" +
        "connection options: [--connection <connection string> | --account-url https://<account>.blob.core.windows.net] [--container widget-audit]\n" +
        "  default connection: the AUDIT_STORAGE environment variable, else local Azurite (127.0.0.1, AZURITE_BLOB_PORT or 10000)";

    private CommandLine(string command)
    {
        Command = command;
    }

    /// <summary><c>verify</c> or <c>find</c>.</summary>
    public string Command { get; }

    /// <summary><c>find</c>'s argument: a webhook id or a lowercase hash.</summary>
    public string? Query { get; private set; }

    /// <summary>Only this process, or all.</summary>
    public string? Process { get; private set; }

    /// <summary>Each <c>--public-key</c>.</summary>
    public List<string> PublicKeys { get; } = [];

    /// <summary><c>--connection</c>.</summary>
    public string? Connection { get; private set; }

    /// <summary><c>--account-url</c>.</summary>
    public Uri? AccountUrl { get; private set; }

    /// <summary><c>--container</c>.</summary>
    public string Container { get; private set; } = DefaultContainer;

    /// <summary>True when <c>find</c>'s argument is a hash rather than a webhook id.</summary>
    public bool QueryIsHash => Query is { Length: 64 } && AuditHash.IsHash(Query);

    /// <summary>Parses <paramref name="args"/>; a usage error throws <see cref="OperatorException"/>.</summary>
    public static CommandLine Parse(IReadOnlyList<string> args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (args.Count == 0 || args[0] is not ("verify" or "find"))
        {
            throw new OperatorException(args.Count == 0 ? "No command." : $"Unknown command '{Printable.Clean(args[0])}'.");
        }

        var line = new CommandLine(args[0]);
        var i = 1;
        if (line.Command == "find")
        {
            if (args.Count < 2 || args[1].StartsWith("--", StringComparison.Ordinal))
            {
                throw new OperatorException("find needs a webhook id or a 64-hex canonical SHA-256.");
            }

            line.Query = ParseQuery(args[1]);
            i = 2;
        }

        for (; i < args.Count; i += 2)
        {
            var name = args[i];
            if (i + 1 >= args.Count)
            {
                throw new OperatorException($"{Printable.Clean(name)} needs a value.");
            }

            var value = args[i + 1];
            switch (name)
            {
                case "--process":
                    line.Process = Once(line.Process, name, ProcessName().IsMatch(value) ? value : throw new OperatorException("--process is 1-128 characters of a-z, 0-9 and '-'."));
                    break;
                case "--public-key" when line.Command == "verify":
                    if (line.PublicKeys.Count == MaxPublicKeys)
                    {
                        throw new OperatorException($"At most {MaxPublicKeys} --public-key options.");
                    }

                    line.PublicKeys.Add(value);
                    break;
                case "--connection":
                    line.Connection = Once(line.Connection, name, value.Length is > 0 and <= 4096 ? value : throw new OperatorException("--connection is 1-4096 characters."));
                    break;
                case "--account-url":
                    line.AccountUrl = Once(line.AccountUrl, name, ParseAccountUrl(value));
                    break;
                case "--container":
                    line.Container = ContainerName().IsMatch(value) ? value : throw new OperatorException("--container is a container name: 3-63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit.");
                    break;
                default:
                    throw new OperatorException($"Unknown option '{Printable.Clean(name)}'.");
            }
        }

        if (line.Connection is not null && line.AccountUrl is not null)
        {
            throw new OperatorException("Give --connection or --account-url, not both.");
        }

        return line;
    }

    private static string ParseQuery(string value)
    {
        if (value.Length == 64 && value.All(char.IsAsciiHexDigit))
        {
            return value.ToLowerInvariant();
        }

        if (value.Length is > 0 and <= MaxWebhookIdLength && value.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_'))
        {
            return value;
        }

        throw new OperatorException($"find's argument is a webhook id (1-{MaxWebhookIdLength} characters of A-Z, a-z, 0-9, '-' and '_') or a 64-hex canonical SHA-256.");
    }

    private static Uri ParseAccountUrl(string value)
    {
        if (value.Length > 512 || !Uri.TryCreate(value, UriKind.Absolute, out var uri) || uri.Scheme != Uri.UriSchemeHttps ||
            !string.IsNullOrEmpty(uri.Query) || !string.IsNullOrEmpty(uri.UserInfo) || uri.AbsolutePath != "/")
        {
            throw new OperatorException("--account-url is the account's blob endpoint: https://<account>.blob.core.windows.net (no path, no query).");
        }

        return uri;
    }

    private static T Once<T>(T? current, string name, T value) =>
        current is null ? value : throw new OperatorException($"{name} is given twice.");

    [GeneratedRegex("^[a-z0-9-]{1,128}$")]
    private static partial Regex ProcessName();

    [GeneratedRegex("^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}$")]
    private static partial Regex ContainerName();
}
