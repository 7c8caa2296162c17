namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>An array literal.</summary>
public sealed class BicepArray : BicepNode
{
    public BicepArray(int line, IReadOnlyList<BicepNode> items)
        : base(line) => Items = items;

    public IReadOnlyList<BicepNode> Items { get; }

    public IEnumerable<BicepObject> Objects => Items.OfType<BicepObject>();

    public override string Text => "[" + string.Join(",", Items.Select(i => i.Text)) + "]";
}
