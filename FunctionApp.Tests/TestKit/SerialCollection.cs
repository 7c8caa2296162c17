namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Tests that change process-wide state (the local time zone) or measure process-wide events (GC allocation
/// ticks) run alone, after the parallel ones.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class SerialCollection
{
    public const string Name = "serial";
}
