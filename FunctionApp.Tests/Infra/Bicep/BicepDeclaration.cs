namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>
/// One top-level statement. <see cref="Type"/> is the param/output type, the resource type
/// (<c>Microsoft.Web/sites@2023-12-01</c>) or the module path.
/// </summary>
public sealed record BicepDeclaration(
    BicepDeclarationKind Kind,
    string Name,
    string? Type,
    IReadOnlyList<BicepDecorator> Decorators,
    BicepNode? Value,
    string? Condition,
    bool Existing,
    int Line)
{
    public BicepDecorator? Decorator(string name) => Decorators.FirstOrDefault(d => string.Equals(d.Name, name, StringComparison.Ordinal));

    /// <summary>The text of <c>@description</c>, or null.</summary>
    public string? Description =>
        Decorator("description") is { Arguments: [BicepString text] } ? text.Value : null;

    public bool IsSecure => Decorator("secure") is not null;

    /// <summary>The resource type without the API version.</summary>
    public string? ResourceType => Kind == BicepDeclarationKind.Resource ? Type?.Split('@')[0] : null;

    /// <summary>The body of a resource or module (an object literal).</summary>
    public BicepObject Body =>
        Value as BicepObject ?? throw new InvalidCastException($"Line {Line}: '{Name}' has no object body.");
}
