namespace WidgetSigning.Primitives;

/// <summary>
/// What went wrong, in the service's one vocabulary (RFC 9457 problem details): the HTTP path answers with it, the queue
/// path rejects or counts with it. Made by <see cref="Problems"/>, where each type's status and title are written once.
/// </summary>
internal sealed record Problem
{
    /// <summary>Creates the problem.</summary>
    public Problem(string type, int status, string title, string detail)
    {
        Type = type;
        Status = status;
        Title = title;
        Detail = detail;
    }

    /// <summary>The problem type URI (<see cref="Problems.Types"/>).</summary>
    public string Type { get; }

    /// <summary>The HTTP status code an HTTP request is answered with.</summary>
    public int Status { get; }

    /// <summary>A short, fixed summary of the problem type.</summary>
    public string Title { get; }

    /// <summary>What exactly is wrong, safe to show the client: never a secret or a token.</summary>
    public string Detail { get; init; }

    /// <summary>The JSON path of the offending value, where there is one.</summary>
    public string? JsonPath { get; init; }

    /// <summary>The <c>WWW-Authenticate</c> challenge, for 401 and a missing role's 403.</summary>
    public string? WwwAuthenticate { get; init; }

    /// <summary>When to try again, for what passes (503, 429).</summary>
    public TimeSpan? RetryAfter { get; init; }
}
