using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// The app's folders that each source file names: <c>using FunctionApp.X</c> directives (also <c>global</c>, <c>static</c>
/// and aliases), qualified <c>FunctionApp.X.</c> names and namespace-relative <c>X.Type</c> names in code. Comments and string literals are ignored. This catches a <c>using</c> that
/// the compiled assembly cannot show (one that nothing uses yet).
/// </summary>
public static partial class SourceDependencies
{
    /// <summary>(file relative to FunctionApp/, its folder, the folder it names, the line) for every reference to one of our folders.</summary>
    public static IEnumerable<(string File, string Folder, string Target, string Line)> Read()
    {
        var app = RepoFiles.File("FunctionApp");
        foreach (var path in Directory.EnumerateFiles(app, "*.cs", SearchOption.AllDirectories))
        {
            var relative = Path.GetRelativePath(app, path).Replace('\\', '/');
            if (relative.StartsWith("bin/", StringComparison.Ordinal) || relative.StartsWith("obj/", StringComparison.Ordinal))
            {
                continue;
            }

            var slash = relative.IndexOf('/', StringComparison.Ordinal);
            var folder = slash < 0 ? FolderRules.Root : relative[..slash];
            foreach (var raw in File.ReadLines(path))
            {
                var line = LineComment().Replace(StringLiteral().Replace(raw, "\"\""), string.Empty);
                foreach (Match match in Reference().Matches(line))
                {
                    // FunctionApp.X is a folder when FunctionApp/X/ exists; otherwise a type of the root (Startup).
                    var name = match.Groups["folder"].Value;
                    var target = Directory.Exists(Path.Combine(app, name)) ? name : FolderRules.Root;
                    yield return (relative, folder, target, raw.Trim());
                }

                // Inside namespace FunctionApp.Y, "Http.HttpEnvelopeReader" means WidgetSigning.Http.HttpEnvelopeReader.
                foreach (Match match in RelativeReference().Matches(line))
                {
                    var name = match.Groups["folder"].Value;
                    if (Directory.Exists(Path.Combine(app, name)))
                    {
                        yield return (relative, folder, name, raw.Trim());
                    }
                }
            }
        }
    }

    // Regular, verbatim and interpolated literals' text (a log category such as "FunctionApp.StreamPool" is not a reference).
    [GeneratedRegex(@"@?\$?""(?:[^""\\]|\\.)*""")]
    private static partial Regex StringLiteral();

    [GeneratedRegex(@"//.*$")]
    private static partial Regex LineComment();

    // "using WidgetSigning.Keys;", "global using static WidgetSigning.Keys.X;", "using K = WidgetSigning.Keys.X;", "WidgetSigning.Keys.X.Y"
    [GeneratedRegex(@"(?<![\w.])FunctionApp\.(?<folder>[A-Z]\w*)\b")]
    private static partial Regex Reference();

    // "Http.HttpEnvelopeReader" (a namespace-relative name), not "options.Http.X" or "WidgetSigning.Http.X".
    [GeneratedRegex(@"(?<![\w.])(?<folder>[A-Z]\w*)\.[A-Z]\w*")]
    private static partial Regex RelativeReference();
}
