namespace HostCompatibility;

/// <summary>One reason the Functions host would refuse (or fail to run) the app.</summary>
/// <param name="Rule">Which check: <c>extension-minimum</c>, <c>unified-assembly</c>, <c>functions-sdk</c> or <c>function-metadata</c>.</param>
/// <param name="Message">What is wrong and what to change, naming the file, assembly or setting.</param>
public sealed record CompatibilityProblem(string Rule, string Message)
{
    /// <inheritdoc/>
    public override string ToString() => $"[{Rule}] {Message}";
}
