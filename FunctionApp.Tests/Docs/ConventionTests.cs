using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Docs;

/// <summary>
/// The docs are a manual of the product as it is now and comments say why: no page of README.md or docs/ and no comment
/// in a non-test source file names an issue ("issue 30", "issues 9–14", "#38") or a dated sitting (a heading with a
/// date or a UTC time range). History belongs in CHANGELOG.md and git, reasons in docs/decisions/, both exempt. One
/// case per file, so a failure names the file and its lines.
/// </summary>
public sealed partial class ConventionTests
{
    /// <summary>Markdown outside these is a page of the manual.</summary>
    private static readonly string[] HistoryPlaces = ["CHANGELOG.md", "docs/decisions/"];

    private static readonly string[] SkippedDirectories = ["bin", "obj", "node_modules", ".git", "BenchmarkDotNet.Artifacts"];

    public static TheoryData<string> Pages()
    {
        var data = new TheoryData<string>();
        foreach (var page in new[] { "README.md", "CONTRIBUTING.md" }.Where(p => File.Exists(RepoFiles.File(p)))
            .Concat(FilesUnder("docs", "*.md"))
            .Where(p => !HistoryPlaces.Any(h => p.StartsWith(h, StringComparison.Ordinal))))
        {
            data.Add(page);
        }

        return data;
    }

    public static TheoryData<string> NonTestSources()
    {
        var data = new TheoryData<string>();
        foreach (var file in FilesUnder(string.Empty, "*.cs").Where(f => !f.StartsWith("FunctionApp.Tests/", StringComparison.Ordinal)))
        {
            data.Add(file);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Pages))]
    public void Docs_AnyPage_NamesNoIssueNumberOrSitting(string page)
    {
        // Arrange
        var lines = RepoFiles.ReadAllText(page.Split('/')).Split('\n');

        // Act
        var found = new List<string>();
        var inCode = false;
        for (var i = 0; i < lines.Length; i++)
        {
            var line = lines[i].TrimEnd('\r');
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                inCode = !inCode;
                continue;
            }

            if (NamesAnIssue(line) || (!inCode && IsDatedHeading(line)))
            {
                found.Add($"{page}:{i + 1}: {line.Trim()}");
            }
        }

        // Assert
        Assert.True(found.Count == 0, "history in a page of the manual (move it to CHANGELOG.md or a decision record):\n" + string.Join('\n', found));
    }

    [Theory]
    [MemberData(nameof(NonTestSources))]
    public void SourceComments_NonTest_NameNoIssueNumber(string file)
    {
        // Arrange
        var lines = RepoFiles.ReadAllText(file.Split('/')).Split('\n');

        // Act
        var found = lines
            .Select((line, i) => (Comment: CommentOf(line), Number: i + 1))
            .Where(l => l.Comment is not null && NamesAnIssue(l.Comment))
            .Select(l => $"{file}:{l.Number}: {l.Comment!.Trim()}")
            .ToList();

        // Assert
        Assert.True(found.Count == 0, "a comment names an issue (say the reason, or link docs/decisions/<record>.md):\n" + string.Join('\n', found));
    }

    public static TheoryData<string> PagesAndDecisions()
    {
        var data = new TheoryData<string>();
        foreach (var page in new[] { "README.md", "CONTRIBUTING.md" }.Concat(FilesUnder("docs", "*.md")))
        {
            data.Add(page);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(PagesAndDecisions))]
    public void Docs_AnyPageOrDecision_NamesOnlyRepositoryPathsThatExist(string page)
    {
        // Arrange
        var lines = RepoFiles.ReadAllText(page.Split('/')).Split('\n');
        var directory = Path.GetDirectoryName(RepoFiles.File(page.Split('/')))!;

        // Act
        var missing = new List<string>();
        var inCode = false;
        for (var i = 0; i < lines.Length; i++)
        {
            var line = lines[i];
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                inCode = !inCode;
                continue;
            }

            if (inCode)
            {
                continue;
            }

            missing.AddRange(CodeSpanPaths().Matches(line).Select(m => m.Groups[1].Value).Where(p => NamesARepositoryPath(p) && !RepositoryPathExists(p)).Select(p => $"{page}:{i + 1}: `{p}`"));
            missing.AddRange(RelativeLinks().Matches(line).Select(m => m.Groups[1].Value)
                .Where(target => !target.Contains(':', StringComparison.Ordinal) && !File.Exists(Path.Combine(directory, target)) && !Directory.Exists(Path.Combine(directory, target)))
                .Select(target => $"{page}:{i + 1}: link {target}"));
        }

        // Assert
        Assert.True(missing.Count == 0, "a page names a path that is not in the repository (moved or renamed?):\n" + string.Join('\n', missing));
    }

    [Theory]
    [InlineData("WidgetSigning/Envelopes/CanonicalUtf8Writer", true)]
    [InlineData("WidgetSigning/Signing/CanonicalUtf8Writer", false)]
    [InlineData("Signing/EnvelopeSigner.ReadAndSignAsync", true)]
    [InlineData("Signing/SigningPipeline", false)]
    [InlineData("docs/decisions/scan-ahead.md", true)]
    [InlineData("tools/NoSuchTool/", false)]
    public void RepositoryPathExists_Path_FindsFilesFoldersAndTypes(string path, bool expected)
    {
        // Act
        var exists = NamesARepositoryPath(path) && RepositoryPathExists(path);

        // Assert
        Assert.Equal(expected, exists);
    }

    /// <summary>
    /// A code span names a repository path when its first segment is a top-level entry of the repository or a folder of
    /// the core (<c>Signing/…</c>); paths the user creates (<c>local.settings.json</c>, <c>.azurite/</c>) are not checked.
    /// </summary>
    private static bool NamesARepositoryPath(string path)
    {
        var first = path.Split('/')[0];
        return first.Length > 0 && !path.EndsWith("local.settings.json", StringComparison.Ordinal) &&
            (File.Exists(RepoFiles.File(first)) || Directory.Exists(RepoFiles.File(first)) || Directory.Exists(RepoFiles.File("WidgetSigning", first)));
    }

    /// <summary>The path, as a file, a folder, a <c>.cs</c> file, or a type's member (<c>Type.Member</c>), from the root, the core or a test project.</summary>
    private static bool RepositoryPathExists(string path)
    {
        var trimmed = path.TrimEnd('/');
        var member = trimmed.LastIndexOf('.');
        string[] candidates = member > trimmed.LastIndexOf('/') ? [trimmed, trimmed + ".cs", trimmed[..member] + ".cs"] : [trimmed, trimmed + ".cs"];
        // Test folders mirror the core's, so Keys/ReceiverScaleTests is a test's path.
        return candidates.Any(c => new[] { RepoFiles.Path, RepoFiles.File("WidgetSigning"), RepoFiles.File("WidgetSigning.Tests"), RepoFiles.File("FunctionApp.Tests") }
            .Any(root => File.Exists(Path.Combine(root, c)) || Directory.Exists(Path.Combine(root, c))));
    }

    [Theory]
    [InlineData("the worker's pool (issue 30).", true)]
    [InlineData("Before issue 29 a plain body was signed.", true)]
    [InlineData("the before/after pair for issues 9–14", true)]
    [InlineData("Issue #38: memory", true)]
    [InlineData("fixed in #123, see there", true)]
    [InlineData("(azure-functions-host#10610, brought in by #10611)", true)]
    [InlineData("Azure/azure-functions-host#10610", false)]
    [InlineData("the token issuer's keys", false)]
    [InlineData("see docs/api.md#limits and deploy.md#1-create-the-app-registration", false)]
    public void NamesAnIssue_Text_FindsIssueReferences(string text, bool expected)
    {
        // Act
        var found = NamesAnIssue(text);

        // Assert
        Assert.Equal(expected, found);
    }

    [Theory]
    [InlineData("## Issue 30, third session: 64 KiB blocks (2026-11-25, 05:50–06:55 UTC)", true)]
    [InlineData("### Sharing the hashing (second session, 2026-11-24)", true)]
    [InlineData("## Runs of 01:00–01:11 UTC", true)]
    [InlineData("## Headline: ours against the seed", false)]
    [InlineData("## Verify a signature: `POST /api/verify`", false)]
    [InlineData("Run 2026-11-25T06:45:19.132Z on 2 × AMD EPYC", false)]
    public void IsDatedHeading_Line_FindsSittingHeadings(string line, bool expected)
    {
        // Act
        var found = IsDatedHeading(line);

        // Assert
        Assert.Equal(expected, found);
    }

    /// <summary>An issue reference: "issue 30", "issues 9–14", "issue #38", or a bare "#38" not part of owner/repo#N.</summary>
    private static bool NamesAnIssue(string text) => IssueWord().IsMatch(text) || BareIssueNumber().IsMatch(text);

    private static bool IsDatedHeading(string line) =>
        Heading().IsMatch(line) && (IsoDate().IsMatch(line) || TimeRange().IsMatch(line) || SittingWord().IsMatch(line));

    /// <summary>The comment part of a C# line (after <c>//</c>, or a block comment's line), or null when it has none.</summary>
    private static string? CommentOf(string line)
    {
        var trimmed = line.TrimStart();
        if (trimmed.StartsWith("/*", StringComparison.Ordinal) || trimmed.StartsWith('*'))
        {
            return trimmed;
        }

        var slashes = line.IndexOf("//", StringComparison.Ordinal);
        return slashes < 0 ? null : line[slashes..];
    }

    /// <summary>Repository-relative paths (forward slashes) of the files matching <paramref name="pattern"/> under a folder, skipping build output.</summary>
    private static IEnumerable<string> FilesUnder(string folder, string pattern)
    {
        var root = RepoFiles.File(folder.Length == 0 ? [] : folder.Split('/'));
        if (!Directory.Exists(root))
        {
            return [];
        }

        return Directory.EnumerateFiles(root, pattern, SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(RepoFiles.Path, f).Replace('\\', '/'))
            .Where(f => !f.Split('/').SkipLast(1).Any(d => SkippedDirectories.Contains(d, StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal);
    }

    [GeneratedRegex(@"`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]*)+)`")]
    private static partial Regex CodeSpanPaths();

    [GeneratedRegex(@"\]\(([^)#\s]+)(?:#[^)]*)?\)")]
    private static partial Regex RelativeLinks();

    [GeneratedRegex(@"\bissues?\s+#?\d+", RegexOptions.IgnoreCase)]
    private static partial Regex IssueWord();

    [GeneratedRegex(@"(?<![\w/.#-])#\d{2,}\b")]
    private static partial Regex BareIssueNumber();

    [GeneratedRegex(@"^\s{0,3}#{1,6}\s")]
    private static partial Regex Heading();

    [GeneratedRegex(@"\b20\d\d-\d\d-\d\d\b")]
    private static partial Regex IsoDate();

    [GeneratedRegex(@"\b\d{1,2}:\d\d\s*[–-]\s*\d{1,2}:\d\d\b")]
    private static partial Regex TimeRange();

    [GeneratedRegex(@"\b(session|sitting)\b", RegexOptions.IgnoreCase)]
    private static partial Regex SittingWord();
}
