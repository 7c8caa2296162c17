using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// Dependencies between the app's folders point one way (<see cref="FolderRules"/>): checked on the compiled
/// FunctionApp.dll (every type, member and IL reference) and on the source (<c>using</c> directives and qualified names).
/// </summary>
public sealed class DependencyDirectionTests
{
    private static readonly string[] HostNamespaces = ["Microsoft.Azure.WebJobs", "Microsoft.Azure.Functions"];

    private static readonly Lazy<IReadOnlyList<(string From, string To)>> CompiledEdges =
        new(() => [.. new[] { "WidgetSigning", "FunctionApp", "FunctionApp.Isolated" }.SelectMany(p => AssemblyDependencies.Read(AssemblyPath(p)))]);

    public static TheoryData<string> CoreFolders() => [.. FolderRules.CoreFolders];

    public static TheoryData<string> Folders()
    {
        var data = new TheoryData<string>();
        foreach (var folder in FolderRules.Allowed.Keys)
        {
            data.Add(folder);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Folders))]
    public void CompiledTypes_InFolder_ReferenceOnlyAllowedFolders(string folder)
    {
        // Arrange
        var edges = FolderEdges().Where(e => e.FromFolder == folder);

        // Act
        var violations = edges
            .Where(e => !FolderRules.IsAllowed(e.FromFolder, e.ToFolder))
            .Select(e => $"{e.FromFolder} → {e.ToFolder}: {e.From} uses {e.To}")
            .Order(StringComparer.Ordinal)
            .ToList();

        // Assert
        Assert.True(violations.Count == 0, $"{folder} may use only {Describe(folder)}, but:\n{string.Join('\n', violations)}");
    }

    [Theory]
    [MemberData(nameof(Folders))]
    public void SourceFiles_InFolder_NameOnlyAllowedFolders(string folder)
    {
        // Arrange
        var references = SourceDependencies.Read().Where(r => r.Folder == folder);

        // Act
        var violations = references
            .Where(r => !FolderRules.IsAllowed(r.Folder, r.Target))
            .Select(r => $"{r.Folder} → {r.Target}: {r.File}: {r.Line}")
            .Distinct(StringComparer.Ordinal)
            .Order(StringComparer.Ordinal)
            .ToList();

        // Assert
        Assert.True(violations.Count == 0, $"{folder} may use only {Describe(folder)}, but:\n{string.Join('\n', violations)}");
    }

    [Theory]
    [MemberData(nameof(CoreFolders))]
    public void SourceFiles_InCoreFolder_HaveNoFunctionsWorkerOrWebJobsTypes(string folder)
    {
        // Arrange: the core serves both hosts, so it names neither.
        var root = Path.Combine(RepoRoot.Path, "WidgetSigning", folder);

        // Act
        var offenders = SourceFiles(root).Where(f => HostNamespaces.Any(File.ReadAllText(f).Contains)).Select(Relative).ToList();

        // Assert
        Assert.NotEmpty(SourceFiles(root));
        Assert.Empty(offenders);
    }

    [Theory]
    [InlineData("FunctionApp", "Microsoft.Azure.WebJobs", "Microsoft.Azure.Functions.Worker", new[] { "FunctionApp/Startup.cs", "FunctionApp/Functions/", "FunctionApp/Functions/QueueTrigger/" })]
    [InlineData("FunctionApp.Isolated", "Microsoft.Azure.Functions.Worker", "Microsoft.Azure.WebJobs", new[] { "FunctionApp.Isolated/Program.cs", "FunctionApp.Isolated/Functions/" })]
    public void SourceFiles_OfAHost_UseItsHostTypesOnlyInItsAdaptersAndNeverTheOtherHosts(string project, string own, string other, string[] allowed)
    {
        // Arrange: each host's types live in its adapters and entry point; the other host's never appear.
        var files = SourceFiles(Path.Combine(RepoRoot.Path, project)).ToList();

        // Act
        var users = files.Where(f => File.ReadAllText(f).Contains(own, StringComparison.Ordinal)).Select(Relative).ToList();
        var misplaced = users.Where(f => !allowed.Any(a => a.EndsWith('/') ? Path.GetDirectoryName(f)!.Replace(Path.DirectorySeparatorChar, '/') + "/" == a : f == a)).ToList();
        var crossed = files.Where(f => File.ReadAllText(f).Contains(other, StringComparison.Ordinal)).Select(Relative).ToList();

        // Assert
        Assert.NotEmpty(users);
        Assert.Empty(misplaced);
        Assert.Empty(crossed);
    }

    [Theory]
    [InlineData("WidgetSigning", null, new[] { "Microsoft.Azure.WebJobs", "Microsoft.Azure.Functions" })]
    [InlineData("FunctionApp", "Microsoft.Azure.WebJobs", new[] { "Microsoft.Azure.Functions.Worker" })]
    [InlineData("FunctionApp.Isolated", "Microsoft.Azure.Functions.Worker", new[] { "Microsoft.Azure.WebJobs" })]
    public void CompiledAssembly_OfEachProject_ReferencesOnlyItsOwnHostsAssemblies(string project, string? expected, string[] forbidden)
    {
        // Arrange
        var path = AssemblyPath(project);

        // Act
        var references = AssemblyDependencies.References(path);

        // Assert
        Assert.Contains("WidgetSigning", project == "WidgetSigning" ? ["WidgetSigning"] : references);
        if (expected is not null)
        {
            Assert.Contains(references, r => r.StartsWith(expected, StringComparison.Ordinal));
        }

        Assert.DoesNotContain(references, r => forbidden.Any(f => r.StartsWith(f, StringComparison.Ordinal)));
    }

    [Fact]
    public void CompiledTypes_EveryFolder_HasARule()
    {
        // Arrange
        var folders = FolderEdges().SelectMany(e => new[] { e.FromFolder, e.ToFolder }).Distinct(StringComparer.Ordinal);

        // Act
        var unruled = folders.Where(f => !FolderRules.Allowed.ContainsKey(f)).ToList();

        // Assert
        Assert.Empty(unruled);
    }

    // The reader must see references of every kind it is relied on for, or the tests above would pass on nothing.
    [Theory]
    [InlineData("FunctionApp.Functions.SignFunction", "WidgetSigning.Http.SignHandler")]
    [InlineData("FunctionApp.Isolated.Functions.HttpFunctions", "WidgetSigning.Http.SignHandler")]
    [InlineData("FunctionApp.Isolated.Functions.SignQueueFunction", "WidgetSigning.Queues.QueueSigningHandler")]
    [InlineData("WidgetSigning.Http.SignHandler", "WidgetSigning.Http.HttpEnvelopeReader")]
    [InlineData("WidgetSigning.Signing.EnvelopeSigner", "WidgetSigning.Envelopes.WidgetEnvelope")]
    [InlineData("WidgetSigning.Envelopes.WidgetEnvelopeReader", "WidgetSigning.Primitives.JsonCharArrayPool")]
    [InlineData("FunctionApp.Startup", "WidgetSigning.Signing.SigningServiceCollectionExtensions")]
    public void AssemblyDependencies_KnownReference_IsSeen(string from, string to)
    {
        // Act
        var edges = CompiledEdges.Value;

        // Assert
        Assert.Contains((from, to), edges);
    }

    [Theory]
    [InlineData("WidgetSigning/Signing/EnvelopeSigner.cs", "Envelopes")]
    [InlineData("FunctionApp/Functions/SignFunction.cs", "Http")]
    [InlineData("FunctionApp.Isolated/Functions/HttpFunctions.cs", "Http")]
    [InlineData("FunctionApp.Isolated/Program.cs", "Signing")]
    [InlineData("WidgetSigning/Envelopes/WidgetEnvelopeReader.cs", "Primitives")]
    public void SourceDependencies_KnownUsing_IsSeen(string file, string target)
    {
        // Act
        var references = SourceDependencies.Read().Where(r => r.File == file);

        // Assert
        Assert.Contains(references, r => r.Target == target);
    }

    private static IEnumerable<(string From, string To, string FromFolder, string ToFolder)> FolderEdges() =>
        CompiledEdges.Value
            .Select(e => (e.From, e.To, FromFolder: FolderRules.FolderOf(Namespace(e.From)), ToFolder: FolderRules.FolderOf(Namespace(e.To))))
            .Where(e => e.FromFolder is not null && e.ToFolder is not null)
            .Select(e => (e.From, e.To, e.FromFolder!, e.ToFolder!));

    /// <summary>The compiled assembly of a project: the test's own references for the two it references, the build output for the isolated app.</summary>
    private static string AssemblyPath(string project) => project switch
    {
        "WidgetSigning" => typeof(WidgetSigning.Signing.EnvelopeSigner).Assembly.Location,
        "FunctionApp" => typeof(Startup).Assembly.Location,
        _ => IsolatedBuildOutput.File(project + ".dll"),
    };

    private static IEnumerable<string> SourceFiles(string root) => Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories)
        .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal) &&
                    !f.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal));

    private static string Relative(string path) => Path.GetRelativePath(RepoRoot.Path, path).Replace(Path.DirectorySeparatorChar, '/');

    private static string? Namespace(string fullName)
    {
        var dot = fullName.LastIndexOf('.');
        return dot < 0 ? null : fullName[..dot];
    }

    private static string Describe(string folder) =>
        FolderRules.Allowed.TryGetValue(folder, out var allowed) && allowed.Count > 0 ? string.Join(", ", allowed.Order(StringComparer.Ordinal)) : "nothing else of ours";
}
