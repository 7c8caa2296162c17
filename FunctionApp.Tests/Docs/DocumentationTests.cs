using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Docs;

/// <summary>README.md stays short and points into docs/; every relative link in README and docs/ resolves.</summary>
public sealed class DocumentationTests
{
    private const int ReadmeMaxBytes = 12 * 1024;

    public static TheoryData<string, string> Links()
    {
        var data = new TheoryData<string, string>();
        foreach (var file in MarkdownFile.All())
        {
            foreach (var link in file.RelativeLinks().Distinct(StringComparer.Ordinal))
            {
                data.Add(file.RelativePath, link);
            }
        }

        return data;
    }

    public static TheoryData<string> DocsFiles()
    {
        var data = new TheoryData<string>();
        foreach (var file in MarkdownFile.All().Where(f => f.RelativePath.StartsWith("docs/", StringComparison.Ordinal)))
        {
            data.Add(file.RelativePath);
        }

        return data;
    }

    [Fact]
    public void Readme_Size_IsAtMost12KB()
    {
        // Arrange
        var path = RepoFiles.File("README.md");

        // Act
        var size = new FileInfo(path).Length;

        // Assert
        Assert.True(size <= ReadmeMaxBytes, $"README.md is {size} bytes; depth belongs in docs/ (at most {ReadmeMaxBytes}).");
    }

    [Theory]
    [MemberData(nameof(Links))]
    public void RelativeLink_InReadmeOrDocs_PointsAtAnExistingFileAndHeading(string source, string link)
    {
        // Arrange
        var hash = link.IndexOf('#', StringComparison.Ordinal);
        var target = hash < 0 ? link : link[..hash];
        var anchor = hash < 0 ? null : link[(hash + 1)..];
        var sourceDirectory = Path.GetDirectoryName(RepoFiles.File(source.Split('/')))!;

        // Act
        var targetPath = target.Length == 0 ? RepoFiles.File(source.Split('/')) : Path.GetFullPath(Path.Combine(sourceDirectory, target));

        // Assert
        Assert.True(File.Exists(targetPath) || Directory.Exists(targetPath), $"{source}: link {link} points at a missing file");
        if (anchor is not null)
        {
            var targetFile = MarkdownFile.Load(Path.GetRelativePath(RepoFiles.Path, targetPath).Replace('\\', '/'));
            Assert.True(targetFile.Anchors().Contains(anchor), $"{source}: link {link}: {targetFile.RelativePath} has no heading with anchor #{anchor}");
        }
    }

    [Theory]
    [MemberData(nameof(DocsFiles))]
    public void DocsFile_ReadmeMap_LinksToIt(string docsFile)
    {
        // Arrange
        var readme = MarkdownFile.Load("README.md");

        // Act
        var linked = readme.RelativeLinks().Select(l => l.Split('#')[0]).ToHashSet(StringComparer.Ordinal);

        // Assert
        Assert.Contains(docsFile, linked);
    }

    [Theory]
    [InlineData("Verify a signature: `POST /api/verify`", "verify-a-signature-post-apiverify")]
    [InlineData("Package: the official storage extension 4.x", "package-the-official-storage-extension-4x")]
    [InlineData("Settings (`KeyVault` section; `KeyVault__VaultUri` etc. as app settings)", "settings-keyvault-section-keyvault__vaulturi-etc-as-app-settings")]
    public void Slug_GitHubHeading_GivesGitHubsAnchor(string heading, string expected)
    {
        // Act
        var slug = MarkdownFile.Slug(heading);

        // Assert
        Assert.Equal(expected, slug);
    }
}
