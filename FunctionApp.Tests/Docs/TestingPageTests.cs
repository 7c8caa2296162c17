using FunctionApp.Tests.Architecture;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Docs;

/// <summary>docs/testing.md has a section for every test folder of both test projects (FunctionApp.Tests, WidgetSigning.Tests).</summary>
public sealed class TestingPageTests
{
    public static TheoryData<string, string> TestFolders()
    {
        var data = new TheoryData<string, string>();
        foreach (var project in new[] { "FunctionApp.Tests", "WidgetSigning.Tests" })
        {
            foreach (var folder in TestFolderTests.Folders(project))
            {
                data.Add(project, folder);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(TestFolders))]
    public void TestingPage_EveryTestFolder_HasASection(string project, string folder)
    {
        // Arrange
        var lines = RepoFiles.ReadAllText("docs", "testing.md").Split('\n').Select(l => l.TrimEnd('\r'));

        // Act
        var section = lines.Any(l => l == $"## {folder}" || l.StartsWith($"## {folder} (", StringComparison.Ordinal));

        // Assert
        Assert.True(section, $"docs/testing.md has no '## {folder}' section for {project}/{folder}/");
    }
}
