namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>The top-level statements the structural reader knows.</summary>
public enum BicepDeclarationKind
{
    TargetScope,
    Using,
    Param,
    Var,
    Resource,
    Module,
    Output,
}
