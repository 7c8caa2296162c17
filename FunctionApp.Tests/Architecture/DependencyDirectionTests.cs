using FunctionApp.Tests.Infrastructure;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// Dependencies between the app's folders point one way (<see cref="FolderRules"/>): checked on the compiled
/// FunctionApp.dll (every type, member and IL reference) and on the source (<c>using</c> directives and qualified names).
/// </summary>
public sealed class DependencyDirectionTests
{
    private static readonly Lazy<IReadOnlyList<(string From, string To)>> CompiledEdges =
        new(() => AssemblyDependencies.Read(typeof(Startup).Assembly.Location));

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
    [MemberData(nameof(Folders))]
    public void SourceFiles_InFolder_HaveNoFunctionsOrWebJobsTypes(string folder)
    {
        // Arrange: only Functions/ and Startup know the host; the rest would move unchanged to the isolated worker.
        if (folder is "Functions" or FolderRules.Root)
        {
            return;
        }

        var root = Path.Combine(RepoRoot.Path, "FunctionApp", folder);

        // Act
        var offenders = Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories)
            .Where(f => File.ReadAllText(f) is var text &&
                        (text.Contains("Microsoft.Azure.WebJobs", StringComparison.Ordinal) ||
                         text.Contains("Microsoft.Azure.Functions", StringComparison.Ordinal)))
            .Select(f => Path.GetRelativePath(RepoRoot.Path, f))
            .ToList();

        // Assert
        Assert.Empty(offenders);
    }

    [Fact]
    public void SourceFiles_WithWebJobsTypes_AreOnlyInFunctionsItsQueueTriggerFolderAndStartup()
    {
        // Arrange: the host's types live exactly here: the function adapters (Functions/*.cs), our queue trigger
        // (Functions/QueueTrigger/*.cs, the WebJobs extension) and Startup.cs. Everything else moves unchanged to the isolated worker.
        string[] allowed = ["FunctionApp/Startup.cs", "FunctionApp/Functions/", "FunctionApp/Functions/QueueTrigger/"];
        var root = Path.Combine(RepoRoot.Path, "FunctionApp");

        // Act
        var offenders = Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal) &&
                        !f.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Where(f => File.ReadAllText(f) is var text &&
                        (text.Contains("Microsoft.Azure.WebJobs", StringComparison.Ordinal) || text.Contains("Microsoft.Azure.Functions", StringComparison.Ordinal)))
            .Select(f => Path.GetRelativePath(RepoRoot.Path, f).Replace(Path.DirectorySeparatorChar, '/'))
            .Where(f => !allowed.Any(a => a.EndsWith('/') ? Path.GetDirectoryName(f)!.Replace(Path.DirectorySeparatorChar, '/') + "/" == a : f == a))
            .ToList();

        // Assert
        Assert.Empty(offenders);
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
    [InlineData("FunctionApp.Functions.SignFunction", "WidgetSigning.Http.HttpEnvelopeReader")]
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
    [InlineData("Signing/EnvelopeSigner.cs", "Envelopes")]
    [InlineData("Functions/SignFunction.cs", "Http")]
    [InlineData("Envelopes/WidgetEnvelopeReader.cs", "Primitives")]
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

    private static string? Namespace(string fullName)
    {
        var dot = fullName.LastIndexOf('.');
        return dot < 0 ? null : fullName[..dot];
    }

    private static string Describe(string folder) =>
        FolderRules.Allowed.TryGetValue(folder, out var allowed) && allowed.Count > 0 ? string.Join(", ", allowed.Order(StringComparer.Ordinal)) : "nothing else of ours";
}
