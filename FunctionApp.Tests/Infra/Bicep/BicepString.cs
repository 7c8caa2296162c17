namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>A string literal, possibly interpolated (<c>'kv-${environmentName}'</c>).</summary>
public sealed class BicepString : BicepNode
{
    public BicepString(int line, string raw, bool multiLine)
        : base(line)
    {
        Raw = raw;
        MultiLine = multiLine;
    }

    /// <summary>The source between the quotes, escapes and interpolations as written.</summary>
    public string Raw { get; }

    public bool MultiLine { get; }

    public bool IsInterpolated => !MultiLine && Raw.Contains("${", StringComparison.Ordinal);

    /// <summary>The value of a string without interpolation.</summary>
    public string Value => IsInterpolated
        ? throw new InvalidOperationException($"Line {Line}: '{Raw}' is interpolated and has no literal value.")
        : MultiLine ? Raw : Raw.Replace("\\'", "'", StringComparison.Ordinal).Replace("\\\\", "\\", StringComparison.Ordinal);

    public override string Text => $"'{Raw}'";
}
