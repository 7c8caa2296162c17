using WidgetSigning.Primitives;
using Microsoft.AspNetCore.Http;

namespace WidgetSigning.Http;

/// <summary>
/// Maps the exceptions that describe a client's mistake (or a transient outage) to problem responses: our own carry
/// their <see cref="Problem"/>; the host's refusals while the body is read and a client that went away are classed here.
/// Anything else is a bug and is left to the host, which logs it.
/// </summary>
internal static class ProblemMapper
{
    /// <summary>The setting that bounds request bodies in the host itself (Kestrel), before the function runs.</summary>
    public const string HostBodyLimitSetting = "FUNCTIONS_REQUEST_BODY_SIZE_LIMIT";

    /// <summary>
    /// Returns a problem for <paramref name="exception"/> if a client caused it, counting a cancellation as the client
    /// closing the request when <paramref name="requestAborted"/> (the request's own token) has fired.
    /// </summary>
    public static bool TryMap(Exception exception, CancellationToken requestAborted, out ProblemResult problem)
    {
        if (exception is OperationCanceledException && requestAborted.IsCancellationRequested)
        {
            problem = new ProblemResult(Problems.ClientClosedRequestProblem);
            return true;
        }

        return TryMap(exception, out problem);
    }

    /// <summary>Returns a problem for <paramref name="exception"/> if it is one the client should see.</summary>
    public static bool TryMap(Exception exception, out ProblemResult problem)
    {
        var found = exception switch
        {
            ProblemException e => e.Problem,

            // Kestrel's own refusals while the body is read: its size limit (set by the host from
            // FUNCTIONS_REQUEST_BODY_SIZE_LIMIT) for a body with Content-Length (a chunked one is classified as it is
            // read, PooledRequestBody), a malformed chunked body, a body shorter than its Content-Length.
            BadHttpRequestException { StatusCode: StatusCodes.Status413PayloadTooLarge } => Problems.BodyTooLargeProblem($"The request body exceeds the host's limit (setting {HostBodyLimitSetting})."),
            BadHttpRequestException e when e.StatusCode is >= 400 and < 500 => Problems.InvalidRequestProblem(e.StatusCode, $"The request body could not be read: {EchoText.Of(e.Message, 200)}"),
            _ => null,
        };

        problem = found is null ? null! : new ProblemResult(found);
        return found is not null;
    }
}
