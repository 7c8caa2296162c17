namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>One token of Bicep source. For strings, <see cref="Text"/> is the source between the quotes.</summary>
public readonly record struct BicepToken(BicepTokenKind Kind, string Text, int Line)
{
    public bool IsSymbol(string symbol) => Kind == BicepTokenKind.Symbol && Text == symbol;

    public bool IsIdentifier(string identifier) => Kind == BicepTokenKind.Identifier && Text == identifier;

    /// <summary>The token as it reads in source (strings with their quotes).</summary>
    public string SourceText => Kind == BicepTokenKind.String ? $"'{Text}'" : Text;
}
