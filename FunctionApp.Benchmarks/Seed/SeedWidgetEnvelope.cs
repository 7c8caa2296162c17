namespace FunctionApp.Benchmarks.Seed;

/// <summary>The seed benchmark's envelope, as published (a list with a private setter).</summary>
public class SeedWidgetEnvelope
{
    /// <summary>The widgets.</summary>
    public List<SeedWidget> Widgets { get; private set; } = new List<SeedWidget>();
}
