using System.Text.RegularExpressions;
using System.Xml.Linq;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// The in-process app could be removed in one change: outside its own paths, only the shared places docs/architecture.md
/// lists name its parts (its project, its local host, the host-compatibility checker, its Elastic Premium module and
/// package deployment). A new file that names them is either the in-process app's or a new shared place to list. A file
/// under those paths that another project compiles (<c>WidgetSigning.Tests</c> compiles helpers from
/// <c>FunctionApp.Tests/TestKit</c>) is shared, not the app's: it must name none of the app's parts or types.
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

        var sharedBuild = CompiledElsewhere();

        // Act
        var outside = files
            .Where(f => !Exempt(f, sharedBuild))
            .Where(f => InProcessPart().IsMatch(File.ReadAllText(Path.Combine(RepoRoot.Path, f))))
            .ToList();

        // Assert
        Assert.True(files.Count > 100, $"only {files.Count} files were read");
        Assert.True(outside.Count == 0, $"these name the in-process app's parts but are not listed in docs/architecture.md's boundary: {string.Join(", ", outside)}");
    }

    [Fact]
    public void ProjectFiles_CompileIncludeOfAnInProcessAppFile_OnlyInItsOwnProjects()
    {
        // Arrange: every project and build file but the app's own and its tests'.
        var buildFiles = BuildFiles().Where(f => f is not "FunctionApp/FunctionApp.csproj" and not "FunctionApp.Tests/FunctionApp.Tests.csproj").ToList();

        // Act
        var including = buildFiles
            .SelectMany(f => CompileIncludes(f).Where(i => i.StartsWith("FunctionApp/", StringComparison.Ordinal)).Select(i => $"{f} compiles {i}"))
            .ToList();

        // Assert
        Assert.Contains("WidgetSigning.Tests/WidgetSigning.Tests.csproj", buildFiles);
        Assert.True(including.Count == 0, $"these compile the in-process app's files, so deleting it would break them: {string.Join("; ", including)}");
    }

    [Fact]
    public void SourceFiles_ReferencingInProcessAppTypes_AreItsOwnOrListedSharedPlaces()
    {
        // Arrange: C# files not the app's own (nor only its tests', nor a listed shared place), and those any other
        // project compiles from them.
        var sharedBuild = CompiledElsewhere();
        var files = Directory.EnumerateFiles(RepoRoot.Path, "*.cs", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(RepoRoot.Path, f).Replace('\\', '/'))
            .Where(f => !Excluded(f) && !Exempt(f, sharedBuild))
            .ToList();

        // Act
        var referencing = files.Where(f => InProcessType().IsMatch(Code(File.ReadAllText(Path.Combine(RepoRoot.Path, f))))).ToList();

        // Assert
        Assert.True(files.Count > 100, $"only {files.Count} files were read");
        Assert.True(referencing.Count == 0, $"these use the in-process app's types (namespace FunctionApp, FunctionApp.Functions) outside its boundary: {string.Join(", ", referencing)}");
    }

    [Fact]
    public void UnitTierSharedHelpers_CompiledFromFunctionAppTests_NameNoInProcessPartOrType()
    {
        // Arrange: the files WidgetSigning.Tests compiles from FunctionApp.Tests (TestKit and the claim-check JSON);
        // they survive the in-process app's removal, so they must not need it.
        var shared = CompileIncludes("WidgetSigning.Tests/WidgetSigning.Tests.csproj").Where(f => f.StartsWith("FunctionApp.Tests/", StringComparison.Ordinal)).ToList();

        // Act
        var naming = shared
            .Where(f => File.Exists(Path.Combine(RepoRoot.Path, f)))
            .Where(f =>
            {
                var text = File.ReadAllText(Path.Combine(RepoRoot.Path, f));
                return InProcessType().IsMatch(Code(text)) || InProcessPart().IsMatch(text);
            })
            .ToList();

        // Assert
        Assert.True(shared.Count >= 19, $"WidgetSigning.Tests compiles only {shared.Count} files from FunctionApp.Tests: {string.Join(", ", shared)}");
        Assert.All(shared, f => Assert.True(File.Exists(Path.Combine(RepoRoot.Path, f)), $"{f} does not exist"));
        Assert.True(naming.Count == 0, $"the unit tier compiles these, which name the in-process app: {string.Join(", ", naming)}");
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

    [Theory]
    [InlineData("using FunctionApp.Functions;", true)]
    [InlineData("using FunctionApp;", true)]
    [InlineData("var types = typeof(FunctionApp.Startup).Assembly;", true)]
    [InlineData("global::FunctionApp.Functions.QueueTrigger.WidgetQueueListener x;", true)]
    [InlineData("namespace FunctionApp.Tests.TestKit;", false)]
    [InlineData("using FunctionApp.Isolated.Hosting;", false)]
    [InlineData("using FunctionApp.Benchmarks.Seed;", false)]
    [InlineData("CreateLogger(\"FunctionApp.StreamPool\"); // FunctionApp.Functions", false)]
    public void InProcessType_Code_MatchesOnlyReferencesToTheInProcessAppsNamespaces(string code, bool expected)
    {
        // Act
        var matches = InProcessType().IsMatch(Code(code));

        // Assert
        Assert.Equal(expected, matches);
    }

    // A listed shared place, or a file under the app's own paths that no project outside them compiles.
    private static bool Exempt(string path, HashSet<string> compiledElsewhere) =>
        SharedPlaces.Any(path.StartsWith) || (OwnPaths.Any(path.StartsWith) && !compiledElsewhere.Contains(path));

    // Files under the app's own paths that a project elsewhere compiles (a Compile Include): shared, not the app's.
    private static HashSet<string> CompiledElsewhere() =>
        BuildFiles()
            .Where(f => !OwnPaths.Any(f.StartsWith))
            .SelectMany(CompileIncludes)
            .Where(f => OwnPaths.Any(f.StartsWith))
            .ToHashSet(StringComparer.Ordinal);

    private static IEnumerable<string> BuildFiles() =>
        Directory.EnumerateFiles(RepoRoot.Path, "*", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(RepoRoot.Path, f).Replace('\\', '/'))
            .Where(f => !Excluded(f) && Path.GetExtension(f) is ".csproj" or ".props" or ".targets");

    /// <summary>The repository files (relative, with '/') the <c>Compile Include</c> items of <paramref name="buildFile"/> name, globs expanded.</summary>
    private static List<string> CompileIncludes(string buildFile)
    {
        var directory = Path.GetDirectoryName(Path.Combine(RepoRoot.Path, buildFile))!;
        var files = new List<string>();
        foreach (var item in XDocument.Load(Path.Combine(RepoRoot.Path, buildFile)).Descendants().Where(e => e.Name.LocalName == "Compile"))
        {
            foreach (var include in ((string?)item.Attribute("Include") ?? string.Empty).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                var full = Path.GetRelativePath(RepoRoot.Path, Path.GetFullPath(Path.Combine(directory, include.Replace('\\', '/')))).Replace('\\', '/');
                if (!full.Contains('*', StringComparison.Ordinal))
                {
                    files.Add(full);
                    continue;
                }

                var pattern = new Regex("^" + Regex.Escape(full).Replace(@"\*\*/", "(.*/)?", StringComparison.Ordinal).Replace(@"\*", "[^/]*", StringComparison.Ordinal) + "$");
                files.AddRange(Directory.EnumerateFiles(RepoRoot.Path, "*", SearchOption.AllDirectories)
                    .Select(f => Path.GetRelativePath(RepoRoot.Path, f).Replace('\\', '/'))
                    .Where(f => !Excluded(f) && pattern.IsMatch(f)));
            }
        }

        return files;
    }

    // C# without its comments and string literals: a log category or a doc comment naming the app uses none of its types.
    private static string Code(string source) => CommentOrString().Replace(source, " ");

    private static bool Excluded(string path) =>
        path.StartsWith("node_modules/", StringComparison.Ordinal) || path.StartsWith(".git/", StringComparison.Ordinal) ||
        path.StartsWith("BenchmarkDotNet.Artifacts/", StringComparison.Ordinal) || path.StartsWith(".azurite", StringComparison.Ordinal) ||
        path.Contains("/bin/", StringComparison.Ordinal) || path.Contains("/obj/", StringComparison.Ordinal) ||
        path.EndsWith("package-lock.json", StringComparison.Ordinal) || path.StartsWith("docs/", StringComparison.Ordinal);

    [GeneratedRegex(@"(?<![\w.])FunctionApp[\\/]FunctionApp\.csproj|tools[\\/]LocalHost|LocalHost\.csproj|HostCompatibility|(?<![A-Za-z])functionApp\.bicep|elastic-premium|deploy-package\.sh")]
    private static partial Regex InProcessPart();

    // The in-process app's namespaces are FunctionApp and FunctionApp.Functions(.*); FunctionApp.Tests, .Isolated and .Benchmarks are others.
    [GeneratedRegex(@"(?<![\w.])(?:global::)?FunctionApp(?:\s*;|\.(?!(?:Tests|Isolated|Benchmarks)\b)[A-Za-z_])")]
    private static partial Regex InProcessType();

    [GeneratedRegex(@"//[^\n]*|/\*.*?\*/|@""(?:[^""]|"""")*""|""(?:[^""\\\n]|\\.)*""|'(?:[^'\\\n]|\\.)'", RegexOptions.Singleline)]
    private static partial Regex CommentOrString();
}
