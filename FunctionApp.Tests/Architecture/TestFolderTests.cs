using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// The unit tier (<c>WidgetSigning.Tests/</c>) mirrors the core's folders: each of its folders but <c>Support/</c> (its
/// helpers) is a folder of <c>WidgetSigning/</c>, and each source file in it declares <c>WidgetSigning.Tests.&lt;Folder&gt;</c>.
/// </summary>
public sealed partial class TestFolderTests
{
    private const string UnitTier = "WidgetSigning.Tests";

    private const string Helpers = "Support";

    public static TheoryData<string> UnitTierFolders()
    {
        var data = new TheoryData<string>();
        foreach (var folder in Folders(UnitTier))
        {
            data.Add(folder);
        }

        return data;
    }

    /// <summary>Top-level folders of a test project holding at least one file (build output excluded).</summary>
    public static IEnumerable<string> Folders(string project) =>
        Directory.GetDirectories(RepoFiles.File(project))
            .Select(Path.GetFileName)
            .OfType<string>()
            .Where(d => d is not ("bin" or "obj") && Directory.EnumerateFiles(RepoFiles.File(project, d), "*", SearchOption.AllDirectories).Any())
            .Order(StringComparer.Ordinal);

    [Theory]
    [MemberData(nameof(UnitTierFolders))]
    public void UnitTierFolder_Any_MirrorsACoreFolder(string folder)
    {
        // Arrange
        var coreFolder = RepoFiles.File("WidgetSigning", folder);

        // Act
        var mirrors = folder == Helpers || Directory.Exists(coreFolder);

        // Assert
        Assert.True(mirrors, $"{UnitTier}/{folder}/ has no WidgetSigning/{folder}/ to mirror (the unit tier tests the core, folder by folder)");
    }

    [Theory]
    [MemberData(nameof(UnitTierFolders))]
    public void UnitTierFolder_EachSourceFile_DeclaresTheFoldersNamespace(string folder)
    {
        // Arrange
        var expected = $"{UnitTier}.{folder}";
        var files = Directory.GetFiles(RepoFiles.File(UnitTier, folder), "*.cs", SearchOption.AllDirectories);

        // Act
        var wrong = files
            .Select(f => (File: Path.GetRelativePath(RepoFiles.Path, f), Namespace: FileNamespace().Match(File.ReadAllText(f)).Groups[1].Value))
            .Where(f => f.Namespace != expected)
            .Select(f => $"{f.File}: namespace {f.Namespace}")
            .ToList();

        // Assert
        Assert.NotEmpty(files);
        Assert.True(wrong.Count == 0, $"expected namespace {expected}:\n" + string.Join('\n', wrong));
    }

    [GeneratedRegex(@"^namespace ([\w.]+);", RegexOptions.Multiline)]
    private static partial Regex FileNamespace();
}
