using System.Diagnostics.CodeAnalysis;

namespace WidgetSigning.Primitives;

/// <summary>
/// The one exception for a <see cref="Problem"/>: code that must react to one kind checks <see cref="Problem"/>'s
/// <see cref="Problem.Type"/>, not the exception's type. <see cref="Exception.Message"/> is the detail unless the thrower
/// gave a fuller one for the logs and queue rejections.
/// </summary>
[SuppressMessage("Design", "CA1032:Implement standard exception constructors", Justification = "It always carries a problem; Problems makes it.")]
internal sealed class ProblemException : Exception
{
    /// <summary>Creates the exception for <paramref name="problem"/>.</summary>
    public ProblemException(Problem problem, string? message = null, Exception? innerException = null)
        : base(message ?? problem?.Detail, innerException)
    {
        ArgumentNullException.ThrowIfNull(problem);
        Problem = problem;
    }

    /// <summary>The problem to answer with.</summary>
    public Problem Problem { get; }

    /// <summary>Whether this is a problem of <paramref name="type"/> (<see cref="Problems.Types"/>).</summary>
    public bool Is(string type) => Problem.Type == type;
}
