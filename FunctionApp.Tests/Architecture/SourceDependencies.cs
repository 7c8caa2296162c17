using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// The folders that each source file of the three projects names: <c>using WidgetSigning.X</c> / <c>FunctionApp.X</c>
/// directives (also <c>global</c>, <c>static</c> and aliases), qualified names and namespace-relative <c>X.Type</c> names
/// in code. Comments and string literals are ignored. This catches a <c>using</c> that the compiled assembly cannot show
/// (one that nothing uses yet).
/// </summary>
public static partial class SourceDependencies
{
    /// <summary>The projects whose sources are read: (folder under the repo root, its root folder's rule name, prefix of its sub-folders' rule names).</summary>
    public static IReadOnlyList<(string Project, string RootFolder, string Prefix)> Projects { get; } =
    [
        ("WidgetSigning", "(core root)", string.Empty),
        ("FunctionApp", FolderRules.Root, string.Empty),
        ("FunctionApp.Isolated", FolderRules.IsolatedRoot, "Isolated/"),
    ];

    /// <summary>(file relative to the repo root, its folder, the folder it names, the line) for every reference to one of our folders.</summary>
    public static IEnumerable<(string File, string Folder, string Target, string Line)> Read()
    {
        foreach (var (project, rootFolder, prefix) in Projects)
        {
            var projectRoot = RepoFiles.File(project);
            foreach (var path in Directory.EnumerateFiles(projectRoot, "*.cs", SearchOption.AllDirectories))
            {
                var relative = Path.GetRelativePath(projectRoot, path).Replace('\\', '/');
                if (relative.StartsWith("bin/", StringComparison.Ordinal) || relative.StartsWith("obj/", StringComparison.Ordinal))
                {
                    continue;
                }

                var slash = relative.IndexOf('/', StringComparison.Ordinal);
                var folder = slash < 0 ? rootFolder : prefix + relative[..slash];
                var file = project + "/" + relative;
                foreach (var raw in File.ReadLines(path))
                {
                    var line = LineComment().Replace(StringLiteral().Replace(raw, "\"\""), string.Empty);
                    foreach (Match match in Reference().Matches(line))
                    {
                        // FunctionApp.X is a folder when there is a rule for it; otherwise a type of that project's root (Startup).
                        var ns = match.Groups["ns"].Value;
                        if (FolderRules.FolderOf(ns) is { } target)
                        {
                            var known = FolderRules.Allowed.ContainsKey(target);
                            yield return (file, folder, known ? target : ns.StartsWith("FunctionApp.Isolated", StringComparison.Ordinal) ? FolderRules.IsolatedRoot : FolderRules.Root, raw.Trim());
                        }
                    }

                    // Inside namespace WidgetSigning.Y, "Http.HttpEnvelopeReader" means WidgetSigning.Http.HttpEnvelopeReader.
                    foreach (Match match in RelativeReference().Matches(line))
                    {
                        var name = match.Groups["folder"].Value;
                        if (FolderRules.CoreFolders.Contains(name) && project == "WidgetSigning")
                        {
                            yield return (file, folder, name, raw.Trim());
                        }
                    }
                }
            }
        }
    }

    // Regular, verbatim and interpolated literals' text (a log category such as "WidgetSigning.StreamPool" is not a reference).
    [GeneratedRegex(@"@?\$?""(?:[^""\\]|\\.)*""")]
    private static partial Regex StringLiteral();

    [GeneratedRegex(@"//.*$")]
    private static partial Regex LineComment();

    // "using WidgetSigning.Keys;", "global using static WidgetSigning.Keys.X;", "using K = WidgetSigning.Keys.X;",
    // "FunctionApp.Functions.X", "FunctionApp.Isolated.Functions.X": the namespace up to and including its folder.
    [GeneratedRegex(@"(?<![\w.])(?<ns>(?:WidgetSigning|FunctionApp\.Isolated|FunctionApp)\.[A-Z]\w*)\b")]
    private static partial Regex Reference();

    // "Http.HttpEnvelopeReader" (a namespace-relative name), not "options.Http.X" or "WidgetSigning.Http.X".
    [GeneratedRegex(@"(?<![\w.])(?<folder>[A-Z]\w*)\.[A-Z]\w*")]
    private static partial Regex RelativeReference();
}
