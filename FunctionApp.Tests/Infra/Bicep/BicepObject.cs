namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>An object literal, properties in source order.</summary>
public sealed class BicepObject : BicepNode
{
    public BicepObject(int line, IReadOnlyList<KeyValuePair<string, BicepNode>> properties)
        : base(line)
    {
        Properties = properties;
        var duplicate = properties.GroupBy(p => p.Key, StringComparer.Ordinal).FirstOrDefault(g => g.Count() > 1);
        if (duplicate is not null)
        {
            throw new BicepSyntaxException($"Line {line}: property '{duplicate.Key}' appears twice.");
        }
    }

    public IReadOnlyList<KeyValuePair<string, BicepNode>> Properties { get; }

    public IEnumerable<string> Keys => Properties.Select(p => p.Key);

    public override string Text => "{" + string.Join(",", Properties.Select(p => $"{p.Key}:{p.Value.Text}")) + "}";

    /// <summary>The property's value; fails naming the path when it is missing.</summary>
    public BicepNode this[string key] =>
        TryGet(key) ?? throw new KeyNotFoundException($"Line {Line}: no property '{key}' (has: {string.Join(", ", Keys)}).");

    public BicepNode? TryGet(string key) =>
        Properties.Where(p => string.Equals(p.Key, key, StringComparison.Ordinal)).Select(p => p.Value).FirstOrDefault();

    public bool Has(string key) => TryGet(key) is not null;

    public BicepObject Object(string key) =>
        this[key] as BicepObject ?? throw new InvalidCastException($"Line {Line}: '{key}' is not an object literal.");

    public BicepArray Array(string key) =>
        this[key] as BicepArray ?? throw new InvalidCastException($"Line {Line}: '{key}' is not an array literal.");

    /// <summary>Follows a dotted path of object properties (<c>properties.siteConfig.minTlsVersion</c>).</summary>
    public BicepNode Path(string dottedPath)
    {
        ArgumentNullException.ThrowIfNull(dottedPath);
        BicepNode current = this;
        foreach (var part in dottedPath.Split('.'))
        {
            current = current is BicepObject o
                ? o[part]
                : throw new InvalidCastException($"Line {current.Line}: cannot read '{part}' of a non-object on the path '{dottedPath}'.");
        }

        return current;
    }
}
