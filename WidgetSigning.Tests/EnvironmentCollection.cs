namespace WidgetSigning.Tests;

/// <summary>Tests that set process environment variables: run alone, so no other test reads them.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class EnvironmentCollection
{
    public const string Name = "Process environment";
}
