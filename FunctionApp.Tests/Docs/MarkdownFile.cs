using System.Text;
using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Docs;

/// <summary>A Markdown file of the checkout (README.md or docs/*.md): its headings' anchors and its relative links.</summary>
public sealed partial class MarkdownFile
{
    private MarkdownFile(string relativePath, string text)
    {
        RelativePath = relativePath;
        Text = text;
    }

    /// <summary>Path from the repository root, with forward slashes.</summary>
    public string RelativePath { get; }

    public string Text { get; }

    /// <summary>README.md and every file in docs/.</summary>
    public static IReadOnlyList<MarkdownFile> All() =>
        [Load("README.md"), .. Directory.GetFiles(RepoFiles.File("docs"), "*.md").Order(StringComparer.Ordinal).Select(f => Load("docs/" + Path.GetFileName(f)))];

    public static MarkdownFile Load(string relativePath) =>
        new(relativePath, RepoFiles.ReadAllText(relativePath.Split('/')));

    /// <summary>The anchors GitHub gives this file's headings (code blocks excluded).</summary>
    public IReadOnlySet<string> Anchors()
    {
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        foreach (var line in LinesOutsideCode())
        {
            var heading = HeadingPattern().Match(line);
            if (heading.Success)
            {
                anchors.Add(Slug(heading.Groups[1].Value));
            }
        }

        return anchors;
    }

    /// <summary>Relative link targets (not http(s), not mailto), outside code blocks.</summary>
    public IEnumerable<string> RelativeLinks() =>
        LinesOutsideCode()
            .SelectMany(l => LinkPattern().Matches(l).Select(m => m.Groups[1].Value))
            .Where(t => !t.Contains("://", StringComparison.Ordinal) && !t.StartsWith("mailto:", StringComparison.Ordinal));

    /// <summary>
    /// The body rows of the table whose header row's first cell is <paramref name="firstHeader"/>, each as its trimmed
    /// cells (code blocks excluded). Empty when there is no such table.
    /// </summary>
    public IReadOnlyList<string[]> TableRows(string firstHeader)
    {
        var rows = new List<string[]>();
        var inTable = false;
        foreach (var line in LinesOutsideCode())
        {
            if (!line.StartsWith('|'))
            {
                if (inTable)
                {
                    break;
                }

                continue;
            }

            var cells = line.Trim().Trim('|').Split('|').Select(c => c.Trim()).ToArray();
            if (!inTable)
            {
                inTable = cells[0] == firstHeader;
            }
            else if (!cells.All(c => c.Trim(':', '-').Length == 0))
            {
                rows.Add(cells);
            }
        }

        return rows;
    }

    /// <summary>GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces to '-'.</summary>
    public static string Slug(string heading)
    {
        var slug = new StringBuilder(heading.Length);
        foreach (var c in heading.Trim().ToLowerInvariant())
        {
            if (char.IsLetterOrDigit(c) || c is '-' or '_')
            {
                slug.Append(c);
            }
            else if (c == ' ')
            {
                slug.Append('-');
            }
        }

        return slug.ToString();
    }

    private IEnumerable<string> LinesOutsideCode()
    {
        var inCode = false;
        foreach (var line in Text.Split('\n'))
        {
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                inCode = !inCode;
                continue;
            }

            if (!inCode)
            {
                yield return line.TrimEnd('\r');
            }
        }
    }

    [GeneratedRegex(@"^#{1,6}\s+(.+?)\s*$")]
    private static partial Regex HeadingPattern();

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex LinkPattern();
}
