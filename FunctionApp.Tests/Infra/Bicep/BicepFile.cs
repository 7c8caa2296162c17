namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>A parsed .bicep or .bicepparam file of the repository, with look-ups by kind and name.</summary>
public sealed class BicepFile
{
    private BicepFile(string relativePath, string source, IReadOnlyList<BicepDeclaration> declarations)
    {
        RelativePath = relativePath;
        Source = source;
        Declarations = declarations;
    }

    public string RelativePath { get; }

    public string Source { get; }

    public IReadOnlyList<BicepDeclaration> Declarations { get; }

    public IEnumerable<BicepDeclaration> Params => Of(BicepDeclarationKind.Param);

    public IEnumerable<BicepDeclaration> Vars => Of(BicepDeclarationKind.Var);

    public IEnumerable<BicepDeclaration> Resources => Of(BicepDeclarationKind.Resource);

    public IEnumerable<BicepDeclaration> Modules => Of(BicepDeclarationKind.Module);

    public IEnumerable<BicepDeclaration> Outputs => Of(BicepDeclarationKind.Output);

    /// <summary>Reads infra/&lt;relativePath&gt; from the checkout.</summary>
    public static BicepFile Load(string relativePath)
    {
        var source = RepoFiles.ReadAllText("infra", relativePath);
        try
        {
            return new BicepFile(relativePath, source, BicepParser.Parse(source));
        }
        catch (BicepSyntaxException ex)
        {
            throw new BicepSyntaxException($"infra/{relativePath}: {ex.Message}", ex);
        }
    }

    public static BicepFile FromSource(string relativePath, string source) => new(relativePath, source, BicepParser.Parse(source));

    public BicepDeclaration Param(string name) => Single(BicepDeclarationKind.Param, name);

    public BicepDeclaration Var(string name) => Single(BicepDeclarationKind.Var, name);

    public BicepDeclaration Resource(string symbol) => Single(BicepDeclarationKind.Resource, symbol);

    public BicepDeclaration Module(string symbol) => Single(BicepDeclarationKind.Module, symbol);

    public BicepDeclaration Output(string name) => Single(BicepDeclarationKind.Output, name);

    /// <summary>The resources of one type (without API version), e.g. <c>Microsoft.Web/sites</c>.</summary>
    public IEnumerable<BicepDeclaration> ResourcesOfType(string type) =>
        Resources.Where(r => string.Equals(r.ResourceType, type, StringComparison.OrdinalIgnoreCase));

    private IEnumerable<BicepDeclaration> Of(BicepDeclarationKind kind) => Declarations.Where(d => d.Kind == kind);

    private BicepDeclaration Single(BicepDeclarationKind kind, string name)
    {
        var matches = Declarations.Where(d => d.Kind == kind && string.Equals(d.Name, name, StringComparison.Ordinal)).ToList();
        return matches.Count == 1
            ? matches[0]
            : throw new KeyNotFoundException($"infra/{RelativePath}: expected one {kind} '{name}', found {matches.Count}.");
    }
}
