using System.Text.RegularExpressions;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.TestKit;

/// <summary>Asserts a <see cref="ProblemException"/> of one problem type, as tests once asserted an exception type.</summary>
internal static partial class ProblemAssert
{
    /// <summary>Asserts that <paramref name="testCode"/> throws a problem of <paramref name="type"/>.</summary>
    public static ProblemException Throws(string type, Action testCode) => Is(type, Assert.Throws<ProblemException>(testCode));

    /// <summary>Asserts that <paramref name="testCode"/> throws a problem of <paramref name="type"/>.</summary>
    public static ProblemException Throws(string type, Func<object?> testCode) => Is(type, Assert.Throws<ProblemException>(testCode));

    /// <summary>Asserts that <paramref name="testCode"/> throws a problem of <paramref name="type"/>.</summary>
    public static async Task<ProblemException> ThrowsAsync(string type, Func<Task> testCode) => Is(type, await Assert.ThrowsAsync<ProblemException>(testCode));

    /// <summary>Asserts that <paramref name="exception"/> is a problem of <paramref name="type"/>.</summary>
    public static ProblemException Is(string type, Exception? exception)
    {
        var problem = Assert.IsType<ProblemException>(exception);
        Assert.Equal(type, problem.Problem.Type);
        return problem;
    }

    /// <summary>Asserts that the problem's detail names <paramref name="receiver"/> (its answer says whose the problem is).</summary>
    public static void NamesReceiver(string receiver, ProblemException exception) =>
        Assert.Contains($"'{receiver}'", exception.Problem.Detail, StringComparison.Ordinal);

    /// <summary>The RFC 6750 <c>error</c> of a 401's challenge; null when it has none (no credentials were sent).</summary>
    public static string? BearerError(ProblemException exception)
    {
        var challenge = exception.Problem.WwwAuthenticate;
        Assert.NotNull(challenge);
        var match = BearerErrorPattern().Match(challenge);
        return match.Success ? match.Groups[1].Value : null;
    }

    [GeneratedRegex("error=\"([^\"]*)\"")]
    private static partial Regex BearerErrorPattern();
}
