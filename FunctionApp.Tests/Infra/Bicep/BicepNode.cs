namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>A value in Bicep source: an object, an array, a plain string or any other expression.</summary>
public abstract class BicepNode
{
    protected BicepNode(int line) => Line = line;

    public int Line { get; }

    /// <summary>The value as normalised source text (tokens joined, strings quoted).</summary>
    public abstract string Text { get; }

    public override string ToString() => Text;
}
