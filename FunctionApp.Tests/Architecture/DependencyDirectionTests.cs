using System.Text.RegularExpressions;
using FunctionApp.Tests.Infrastructure;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// Dependencies point one way: Functions → (Http, Queues) → Signing → (Envelopes, Keys), and Envelopes and Keys use nothing
/// of ours but Primitives. Read from the sources (using directives and namespace-qualified names), so a new edge fails
/// here with the file that made it.
/// </summary>
public sealed partial class DependencyDirectionTests
{
    private static readonly Dictionary<string, string[]> Allowed = new(StringComparer.Ordinal)
    {
        ["Primitives"] = [],
        ["Envelopes"] = ["Primitives"],
        ["Keys"] = ["Primitives"],
        ["Signing"] = ["Envelopes", "Keys", "Primitives"],
        ["Http"] = ["Signing", "Envelopes", "Keys", "Primitives"],
        ["Queues"] = ["Signing", "Envelopes", "Keys", "Primitives"],
    };

    public static TheoryData<string> Folders() => new(Allowed.Keys);

    [Theory]
    [MemberData(nameof(Folders))]
    public void Folder_References_OnlyTheFoldersBelowIt(string folder)
    {
        // Arrange
        var root = Path.Combine(RepoRoot.Path, "FunctionApp", folder);
        var violations = new List<string>();

        // Act
        foreach (var file in Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories))
        {
            var text = File.ReadAllText(file);
            foreach (Match match in OurNamespace().Matches(text))
            {
                var target = match.Groups["using"].Success ? match.Groups["using"].Value : match.Groups["qualified"].Value;
                if (target != folder && !Allowed[folder].Contains(target))
                {
                    violations.Add($"{Path.GetRelativePath(RepoRoot.Path, file)}: {match.Value.Trim()}");
                }
            }
        }

        // Assert
        Assert.True(violations.Count == 0, $"{folder} may use only {string.Join(", ", Allowed[folder])}; found:\n{string.Join("\n", violations)}");
    }

    [Theory]
    [MemberData(nameof(Folders))]
    public void Folder_HasNoFunctionsOrWebJobsTypes(string folder)
    {
        // Arrange: only Functions/ and Startup know the host; the rest would move unchanged to the isolated worker.
        var root = Path.Combine(RepoRoot.Path, "FunctionApp", folder);

        // Act
        var offenders = Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories)
            .Where(f => File.ReadAllText(f).Contains("Microsoft.Azure.WebJobs", StringComparison.Ordinal) ||
                        File.ReadAllText(f).Contains("Microsoft.Azure.Functions", StringComparison.Ordinal))
            .Select(f => Path.GetRelativePath(RepoRoot.Path, f))
            .ToList();

        // Assert
        Assert.Empty(offenders);
    }

    // "using FunctionApp.X;" or a qualified "X.Type" not preceded by another name part (so "Microsoft.Net.Http.Headers"
    // and "FunctionApp.Keys.ThrottleSignal" in a string do not count).
    [GeneratedRegex(@"^\s*using\s+(?:static\s+)?FunctionApp\.(?<using>[A-Za-z]+)|(?<![\w.])(?<qualified>Envelopes|Keys|Primitives|Signing|Http|Queues|Functions)\.[A-Z]\w*", RegexOptions.Multiline)]
    private static partial Regex OurNamespace();
}
