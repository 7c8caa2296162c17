using System.Text.RegularExpressions;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// The in-process app could be removed in one change: outside its own paths, only the shared places docs/architecture.md
/// lists name its parts (its project, its local host, the host-compatibility checker, its Elastic Premium module and
/// package deployment). A new file that names them is either the in-process app's or a new shared place to list.
/// </summary>
public sealed partial class InProcessBoundaryTests
{
    // Its own paths (a file under one of these is the in-process app's).
    private static readonly string[] OwnPaths =
    [
        "FunctionApp/", "tools/LocalHost/", "tools/HostCompatibility/", "infra/modules/functionApp.bicep",
        "infra/main.elastic-premium.bicepparam", "infra/scripts/deploy-package.sh", "FunctionApp.Tests/",
    ];

    // The shared places docs/architecture.md lists.
    private static readonly string[] SharedPlaces =
    [
        "FunctionApp.slnx", "Directory.Packages.props", "infra/main.bicep", "infra/scripts/deploy-app.sh", "azure-pipelines.yml",
        "scripts/start.mjs", "scripts/load.mjs", "scripts/breakdown/run.sh", "tools/Shared/", "package.json", "FunctionApp.Benchmarks/",
    ];

    private static readonly string[] Extensions = [".cs", ".csproj", ".props", ".targets", ".slnx", ".mjs", ".js", ".sh", ".yml", ".bicep", ".bicepparam", ".json", ".py"];

    [Fact]
    public void RepositoryFiles_NamingInProcessParts_AreItsOwnOrListedSharedPlaces()
    {
        // Arrange
        var files = Directory.EnumerateFiles(RepoRoot.Path, "*", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(RepoRoot.Path, f).Replace('\\', '/'))
            .Where(f => Extensions.Contains(Path.GetExtension(f)) && !Excluded(f))
            .ToList();

        // Act
        var outside = files
            .Where(f => !OwnPaths.Any(f.StartsWith) && !SharedPlaces.Any(f.StartsWith))
            .Where(f => InProcessPart().IsMatch(File.ReadAllText(Path.Combine(RepoRoot.Path, f))))
            .ToList();

        // Assert
        Assert.True(files.Count > 100, $"only {files.Count} files were read");
        Assert.True(outside.Count == 0, $"these name the in-process app's parts but are not listed in docs/architecture.md's boundary: {string.Join(", ", outside)}");
    }

    [Fact]
    public void ArchitectureDoc_Boundary_ListsEveryOwnPathAndSharedPlace()
    {
        // Arrange
        var doc = File.ReadAllText(Path.Combine(RepoRoot.Path, "docs", "architecture.md"));
        var section = doc[doc.IndexOf("## The in-process app's boundary", StringComparison.Ordinal)..];

        // Act
        var missing = OwnPaths.Where(p => p != "FunctionApp.Tests/").Concat(SharedPlaces)
            .Where(p => !section.Contains($"`{p.TrimEnd('/')}", StringComparison.Ordinal))
            .ToList();

        // Assert
        Assert.True(missing.Count == 0, $"docs/architecture.md's boundary does not name: {string.Join(", ", missing)}");
    }

    [Theory]
    [InlineData("<ProjectReference Include=\"..\\FunctionApp\\FunctionApp.csproj\" />", true)]
    [InlineData("dotnet tools/LocalHost/bin/Release/net8.0/LocalHost.dll", true)]
    [InlineData("module functionApp 'modules/functionApp.bicep'", true)]
    [InlineData("dotnet build FunctionApp.Isolated -c Release", false)]
    [InlineData("infra/modules/flexFunctionApp.bicep", false)]
    public void InProcessPart_Text_MatchesOnlyTheInProcessAppsParts(string text, bool expected)
    {
        // Act
        var matches = InProcessPart().IsMatch(text);

        // Assert
        Assert.Equal(expected, matches);
    }

    private static bool Excluded(string path) =>
        path.StartsWith("node_modules/", StringComparison.Ordinal) || path.StartsWith(".git/", StringComparison.Ordinal) ||
        path.StartsWith("BenchmarkDotNet.Artifacts/", StringComparison.Ordinal) || path.StartsWith(".azurite", StringComparison.Ordinal) ||
        path.Contains("/bin/", StringComparison.Ordinal) || path.Contains("/obj/", StringComparison.Ordinal) ||
        path.EndsWith("package-lock.json", StringComparison.Ordinal) || path.StartsWith("docs/", StringComparison.Ordinal);

    [GeneratedRegex(@"(?<![\w.])FunctionApp[\\/]FunctionApp\.csproj|tools[\\/]LocalHost|LocalHost\.csproj|HostCompatibility|(?<![A-Za-z])functionApp\.bicep|elastic-premium|deploy-package\.sh")]
    private static partial Regex InProcessPart();
}
