namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>The kinds of token <see cref="BicepLexer"/> produces.</summary>
public enum BicepTokenKind
{
    Identifier,
    Number,
    String,
    Symbol,
    NewLine,
}
