using FunctionApp.Envelopes;
using FunctionApp.Keys;
using Microsoft.AspNetCore.Http;

namespace FunctionApp.Http;

/// <summary>
/// Maps the exceptions that describe a client's mistake (or a transient key outage) to problem responses.
/// Anything else is a bug and is left to the host, which logs it.
/// </summary>
public static class ProblemMapper
{
    /// <summary>Returns a problem for <paramref name="exception"/> if it is one the client should see.</summary>
    public static bool TryMap(Exception exception, out ProblemResult problem)
    {
        problem = exception switch
        {
            EnvelopeFormatException e => new ProblemResult(StatusCodes.Status400BadRequest, ProblemTypes.InvalidEnvelope, "The envelope is invalid.", e.Message)
            {
                JsonPath = e.JsonPath,
            },
            InvalidRequestException e => new ProblemResult(StatusCodes.Status400BadRequest, ProblemTypes.InvalidRequest, "The request is invalid.", e.Message)
            {
                JsonPath = e.JsonPath,
            },
            RequestBodyTooLargeException e => new ProblemResult(StatusCodes.Status413PayloadTooLarge, ProblemTypes.BodyTooLarge, "The request body is too large.", e.Message),
            UnsupportedContentTypeException e => new ProblemResult(StatusCodes.Status415UnsupportedMediaType, ProblemTypes.UnsupportedMediaType, "Unsupported media type.", e.Message),
            SigningKeyUnavailableException e => new ProblemResult(StatusCodes.Status503ServiceUnavailable, ProblemTypes.KeyUnavailable, "The signing key is not available yet.", "No signing key could be obtained; try again later.")
            {
                RetryAfter = e.RetryAfter,
            },
            _ => null!,
        };

        return problem is not null;
    }
}
