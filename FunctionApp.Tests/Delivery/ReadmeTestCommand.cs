using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Delivery;

/// <summary>The test command the README's "Tests" section documents (the first line of its code block).</summary>
public static class ReadmeTestCommand
{
    public static string Read()
    {
        var lines = RepoFiles.ReadAllText("README.md").Split('\n').Select(l => l.TrimEnd('\r')).ToList();
        var heading = lines.FindIndex(l => l == "## Tests");
        Assert.True(heading >= 0, "README.md has no '## Tests' section");
        var fence = lines.FindIndex(heading, l => l.StartsWith("```", StringComparison.Ordinal));
        Assert.True(fence > heading, "README.md's Tests section has no code block");
        var command = lines[fence + 1].Trim();
        Assert.StartsWith("dotnet test", command, StringComparison.Ordinal);
        return command;
    }
}
