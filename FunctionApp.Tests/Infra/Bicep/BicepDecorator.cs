namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>A decorator such as <c>@description('…')</c>, with its arguments.</summary>
public sealed record BicepDecorator(string Name, IReadOnlyList<BicepNode> Arguments);
